/**
 * @module One live cluster kept current for `sync --watch`, as a client-go informer keeps its cache: list
 * every kind kedge reads (discovery first), then watch each from the list's resourceVersion; a watch that
 * ends is opened again where it left off, one the server has compacted past (410 Gone) lists again. The
 * snapshot is the objects as last seen. When the API stops answering, the snapshot stays and the cluster
 * is stale from that moment until a list or watch succeeds again; attempts back off to 30 s. A change to
 * an object's status alone (kedge's own writes among them) is not a change: it calls nothing.
 */
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { canonicalJson } from "../../src/table/canonical-json";
import { type ApiAnswer, ApiUnreachable, KubeApi } from "./api-client";
import { discoverListings, type Listing } from "./discovery";
import { type ClusterObjects, objectsOf, readable } from "./read-cluster";

type Json = Record<string, unknown>;

interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: Json & { metadata?: { name?: string; namespace?: string; resourceVersion?: string }; code?: number };
}

/** What a watch delivers past one listing: its objects by namespace/name, and where the watch resumes. */
interface ListingState {
  listing: Listing;
  resourceVersion: string;
  objects: Map<string, Json>;
}

const keyOf = (o: WatchEvent["object"]) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** An object without what changes on every write to it: status, resourceVersion, managedFields. */
function specOnly(o: Json): string {
  const { status: _status, metadata, ...rest } = o;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = (metadata ?? {}) as Json;
  return canonicalJson({ ...rest, metadata: meta });
}

const BACKOFF_MS = [1000, 2000, 5000, 10_000, 30_000];
const WATCH_SECONDS = 300;

export class ClusterWatch {
  readonly api: KubeApi;
  listings: Listing[] = [];
  /** Since when the API has not answered; null while it does (and before the first listing). */
  staleSince: Date | null = null;
  /** Whether every listing was listed at least once (the snapshot is whole). */
  listed = false;
  private readonly states = new Map<string, ListingState>();
  private readonly abort = new AbortController();

  constructor(
    readonly cluster: ClusterSettings,
    /** Called after each change to the snapshot, and when the cluster turns stale or answers again. */
    private readonly changed: (why: string) => void,
    private readonly sleep = (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      }),
  ) {
    this.api = KubeApi.forCluster(cluster);
  }

  /** The snapshot, as the objects a one-shot read would give. */
  objects(): ClusterObjects {
    const read: ClusterObjects = { manifests: [], skipped: [] };
    for (const { listing, objects } of this.states.values()) {
      const apiVersion = listing.group === "" ? listing.version : `${listing.group}/${listing.version}`;
      const list = JSON.stringify({ apiVersion, kind: `${listing.kind}List`, items: [...objects.values()] });
      const parsed = objectsOf(this.api, listing, list);
      read.manifests.push(...parsed.manifests);
      read.skipped.push(...parsed.skipped);
    }
    return read;
  }

  /** Starts listing and watching; returns at once. A refusal (401, 403) stops this cluster's watch with `failed`. */
  start(failed: (error: Error) => void): void {
    void this.run().catch((error: unknown) => {
      if (!this.abort.signal.aborted) failed(error instanceof Error ? error : new Error(String(error)));
    });
  }

  stop(): void {
    this.abort.abort();
  }

  private answered(): void {
    if (this.staleSince === null) return;
    this.staleSince = null;
    this.changed(`cluster ${this.cluster.name}: its API answers again`);
  }

  private unreachable(error: ApiUnreachable): void {
    if (this.staleSince !== null) return;
    this.staleSince = new Date();
    this.changed(`${error.message}; keeping its last snapshot`);
  }

  private async list(listing: Listing): Promise<void> {
    const answer = await readable(this.api, listing.path);
    const body = answer.status === 404 ? { metadata: { resourceVersion: "" }, items: [] } : (JSON.parse(answer.body) as Json);
    const objects = new Map<string, Json>();
    for (const item of (body.items as WatchEvent["object"][] | undefined) ?? []) objects.set(keyOf(item), item);
    const resourceVersion = String((body.metadata as Json | undefined)?.resourceVersion ?? "");
    const before = this.states.get(listing.path);
    this.states.set(listing.path, { listing, resourceVersion, objects });
    const same =
      before &&
      before.objects.size === objects.size &&
      [...objects].every(([k, o]) => before.objects.has(k) && specOnly(before.objects.get(k)!) === specOnly(o));
    if (!same && this.listed) this.changed(`cluster ${this.cluster.name}: ${listing.kind} listed again`);
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    for (let failures = 0; !signal.aborted;) {
      try {
        this.listings = await discoverListings((path) => readable(this.api, path));
        for (const listing of this.listings) await this.list(listing);
        this.answered();
        if (!this.listed) {
          this.listed = true;
          this.changed(`cluster ${this.cluster.name}: listed`);
        }
        failures = 0;
        // One watch per listing, each resuming where it ended; a 410 lists that kind again. When one
        // fails, the round ends for all: the next lists everything again.
        const round = new AbortController();
        const stopRound = () => round.abort();
        signal.addEventListener("abort", stopRound, { once: true });
        try {
          await Promise.all(
            this.listings.map((listing) =>
              this.watch(listing, round.signal).catch((error: unknown) => {
                round.abort();
                throw error;
              }),
            ),
          );
        } finally {
          signal.removeEventListener("abort", stopRound);
          round.abort();
        }
      } catch (error) {
        if (!(error instanceof ApiUnreachable)) throw error;
        this.unreachable(error);
        await this.sleep(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]!, signal);
      }
    }
  }

  /** Watches one listing until `signal` stops it; throws ApiUnreachable when the server stops answering. */
  private async watch(listing: Listing, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const state = this.states.get(listing.path)!;
      const query = `watch=1&allowWatchBookmarks=true&timeoutSeconds=${WATCH_SECONDS}&resourceVersion=${encodeURIComponent(state.resourceVersion)}`;
      let gone = false;
      const answer: ApiAnswer = await this.api.stream(
        `${listing.path}?${query}`,
        (line) => {
          const event = JSON.parse(line) as WatchEvent;
          if (event.type === "ERROR") {
            if (event.object.code === 410) gone = true;
            return;
          }
          const rv = event.object.metadata?.resourceVersion;
          if (rv) state.resourceVersion = rv;
          if (event.type === "BOOKMARK") return;
          const key = keyOf(event.object);
          const before = state.objects.get(key);
          if (event.type === "DELETED") state.objects.delete(key);
          else state.objects.set(key, event.object);
          if (event.type === "DELETED" || !before || specOnly(before) !== specOnly(event.object))
            this.changed(`cluster ${this.cluster.name}: ${listing.kind} ${key.replace(/^\//, "")} ${event.type.toLowerCase()}`);
        },
        signal,
      );
      if (signal.aborted) return;
      this.answered();
      if (answer.status === 410 || gone) await this.list(listing);
      else if (answer.status !== 200 && !signal.aborted) await readable(this.api, listing.path).then(() => this.list(listing));
    }
  }
}
