/**
 * @module A local stand-in for one Workers VPC network binding, run in workerd beside kedge. Like the real
 * binding it is a Fetcher whose URL names the destination (`http://10.4.2.17:8080/path`), and like a tunnel
 * that cannot reach an address, its fetch() throws. Each private address of the network maps to the
 * loopback origin standing in for that pod (`env.ADDRESSES`, `"10.4.2.17:8080": "127.0.0.1:41234"`); an
 * address it does not map, or an origin that refuses, fails the way `connection_refused` does in production.
 */

const DEFAULT_PORTS = { "http:": "80", "https:": "443" };

export default {
  /**
   * @param {Request} request
   * @param {{ ADDRESSES: Record<string, string>, NETWORK: string }} env
   */
  async fetch(request, env) {
    const url = new URL(request.url);
    const port = url.port || DEFAULT_PORTS[/** @type {"http:" | "https:"} */ (url.protocol)] || "80";
    const address = `${url.hostname}:${port}`;
    const origin = env.ADDRESSES[address];
    if (origin === undefined) throw new Error(`connection_refused: ${address} is not reachable through ${env.NETWORK}`);
    // The local origins speak plain HTTP; what the Worker asked for (path, method, headers, body) is kept.
    return fetch(new Request(`http://${origin}${url.pathname}${url.search}`, request), { redirect: "manual" });
  },
};
