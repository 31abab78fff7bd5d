# kedge's controller image: `kedge sync --watch` from the published package, on Node's slim image, as a
# non-root user. Build it from a packed kedge (what `npm publish` ships):
#   npm pack                       # kedge-<version>.tgz, built by its prepack script
#   docker build -t kedge:<version> .
# and name the image in `kedge manifests --image`. Nothing secret is built in: the Cloudflare API token and
# the kubeconfigs of other clusters come from Secrets at run time (see docs/live-clusters.md).
FROM node:24-slim AS install
WORKDIR /app
COPY kedge-*.tgz /tmp/
# kedge's one peer, wrangler, at the release kedge is tested with on Node 24 (it brings Miniflare).
RUN npm install --omit=dev --no-audit --no-fund /tmp/kedge-*.tgz wrangler@4.168.0 \
 && npm cache clean --force \
 && rm /tmp/kedge-*.tgz

FROM node:24-slim
ENV NODE_ENV=production WRANGLER_SEND_METRICS=false HOME=/work
COPY --from=install /app /app
WORKDIR /work
# The node image's unprivileged user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080 8081
ENTRYPOINT ["node", "/app/node_modules/kedge/dist/cli.mjs", "sync", "--watch"]
