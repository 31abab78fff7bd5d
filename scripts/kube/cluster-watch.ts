/**
 * @module One live cluster kept current for `sync --watch`, as a client-go informer keeps its cache: list
 * every kind kedge reads (discovery first; lists in pages, paged-list.ts), then watch each from the list's
 * resourceVersion, with bookmarks where the server sends them. A watch that ends is opened again where it
 * left off; one the server answers with an ERROR event (410 Gone after a compaction, or any other) lists
 * that kind again; a kind whose resource went away (404: its CRD was removed) sends the watch back to
 * discovery, as does the resync period (`--resync-period`): everything is discovered and listed again, so a
 * CRD installed later is listed and a change a watch missed (a stream that died quietly) is found, and told
 * as such. The snapshot is the objects as last seen. When the API stops answering (refused,
 * reset, silent past the watch's deadline, overloaded, failing), the snapshot stays and the cluster is
 * stale from that moment until a list or watch succeeds again; attempts back off to 30 s. A change to an
 * object's status alone is not a change for the kinds kedge writes status to (its own writes among them);
 * for the others (a Service's load balancer) it is.
 */
import type { ClusterSettings } from "../../src/compile/input/edge-config";
import { canonicalJson } from "../../src/table/canonical-json";
import { ApiUnreachable, KubeApi } from "./api-client";
import { discoverListings, type Listing } from "./discovery";
import type { SkippedDocument } from "../../src/gateway-api/parse-manifests";
import { type ClusterObjects, isRefusal, listListing, objectsOf, readable } from "./read-cluster";
import { jsonOf } from "../lib/json";
import { type KubeObject, type WatchEvent, WATCH_EVENT } from "./api-answers";
import { SERVICE_NAME_LABEL } from "../../src/compile/input/resource-index";

type Json = Record<string, unknown>;

/** What a watch delivers past one listing: its objects by namespace/name, and where the watch resumes. */
interface ListingState {
  listing: Listing;
  resourceVersion: string;
  objects: Map<string, Json>;
  /** Another implementation's policy kind kedge may not list: not watched, said as a warning. */
  refused?: SkippedDocument;
}

export interface ClusterWatchOptions {
  /** How often everything is discovered and listed again while the watches run (`--resync-period`). */
  resyncMs?: number;
  /** A line for the log: a relist found changes the watch had missed. */
  note?: (line: string) => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * A change to a Service or an EndpointSlice, by the Services it concerns (`namespace/name`: a Service's own, an
 * EndpointSlice's `kubernetes.io/service-name`, before and after): the watch loop skips a cycle whose changes all
 * concern Services nothing at the edge names. Any other change comes without one, and always counts.
 */
export interface ServiceChange {
  cluster: string;
  /** A Service's own change (its name can appear in a did-you-mean), or an EndpointSlice's. */
  kind: "Service" | "EndpointSlice";
  services: string[];
}

/** The listing's resource is gone (404): discovery again. */
class Rediscover extends Error {}

const keyOf = (o: WatchEvent["object"]) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

/** Kinds whose status the compiler does not read (it writes them): a change there alone changes nothing. */
const STATUS_NOT_READ = new Set(["gateway.networking.k8s.io", "gateway.networking.x-k8s.io"]);

/** An object as the compiler reads it: without what changes on every write (resourceVersion, managedFields), apiVersion/kind (lists omit them), and status where it is not read. */
function readPart(listing: Listing, o: Json): string {
  const { status, metadata, apiVersion: _apiVersion, kind: _kind, ...rest } = o;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = (metadata ?? {}) as Json;
  return canonicalJson({ ...rest, metadata: meta, ...(STATUS_NOT_READ.has(listing.group) ? {} : { status }) });
}

const BACKOFF_MS = [1000, 2000, 5000, 10_000, 30_000];
/** The server ends a watch after this; the client gives it a grace past that before calling it gone. */
const WATCH_SECONDS = 300;
const WATCH_GRACE_MS = 30_000;
/**
 * A watch stream that has delivered nothing (no event, no bookmark) and not been opened again for longer
 * than this is stuck: its own deadline should have ended it (/healthz fails, controller/health.ts).
 */
export const WATCH_SILENCE_LIMIT_MS = WATCH_SECONDS * 1000 + WATCH_GRACE_MS + 30_000;
/** The default resync period: discovery and every list again, as often as this. */
export const RESYNC_MS = 10 * 60_000;

const sleepFor = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

export class ClusterWatch {
  readonly api: KubeApi;
  listings: Listing[] = [];
  /** When this watch started: a cluster not listed within --stale-after of it counts as stale. */
  readonly startedAt = Date.now();
  /** Since when the API has not answered; null while it does (and before the first listing). */
  staleSince: Date | null = null;
  /** Whether every listing was listed at least once (the snapshot is whole). */
  listed = false;
  /** When the cluster's API last delivered something: a list, a watch event or a bookmark (ms). */
  heardAt = Date.now();
  /** Changes a periodic relist found that the watches had missed, since the start. */
  missedChanges = 0;
  private readonly states = new Map<string, ListingState>();
  /** Each open watch stream's listing path, and when it last delivered a line or was opened (ms). */
  private readonly streams = new Map<string, number>();
  private readonly abort = new AbortController();
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly resyncMs: number;
  /** Set while a periodic relist runs: a difference it finds is one the watches missed. */
  private resyncing = false;

  constructor(
    readonly cluster: ClusterSettings,
    /** Called after each change to the snapshot, and when the cluster turns stale or answers again. */
    private readonly changedListener: (why: string, change?: ServiceChange) => void,
    private readonly options: ClusterWatchOptions = {},
  ) {
    this.api = KubeApi.forCluster(cluster);
    this.sleep = options.sleep ?? sleepFor;
    this.resyncMs = options.resyncMs ?? RESYNC_MS;
  }

  /** How many objects of each kind the snapshot holds. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { listing, objects } of this.states.values()) counts.set(listing.kind, (counts.get(listing.kind) ?? 0) + objects.size);
    return counts;
  }

  /** The longest time an open watch stream of this cluster has delivered nothing, in ms (0 with none open). */
  longestSilenceMs(now = Date.now()): number {
    return Math.max(0, ...[...this.streams.values()].map((at) => now - at));
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Nothing is said once stopped: a stopped watch's last list or event changes no cycle. */
  private changed(why: string, change?: ServiceChange): void {
    if (!this.stopped) this.changedListener(why, change);
  }

  /** What a watch event on a Service or an EndpointSlice concerns; undefined for any other (it always counts). */
  private serviceChange(listing: Listing, objects: (KubeObject | undefined)[]): ServiceChange | undefined {
    const service = listing.group === "" && listing.kind === "Service";
    if (!service && !(listing.group === "discovery.k8s.io" && listing.kind === "EndpointSlice")) return undefined;
    const services = new Set<string>();
    for (const o of objects) {
      if (!o) continue;
      const labels = o.metadata?.labels as Record<string, unknown> | undefined;
      const name = service ? o.metadata?.name : labels?.[SERVICE_NAME_LABEL];
      // A slice without its Service's label is told as dropped: that always counts.
      if (typeof name !== "string" || !o.metadata?.namespace) return undefined;
      services.add(`${o.metadata.namespace}/${name}`);
    }
    return { cluster: this.cluster.name, kind: service ? "Service" : "EndpointSlice", services: [...services] };
  }

  /** The snapshot, as the objects a one-shot read would give. */
  objects(): ClusterObjects {
    const read: ClusterObjects = { manifests: [], skipped: [] };
    for (const { listing, objects, refused } of this.states.values()) {
      if (refused) read.skipped.push(refused);
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
      if (!this.stopped) failed(error instanceof Error ? error : new Error(String(error)));
    });
  }

  stop(): void {
    this.abort.abort();
  }

  private answered(): void {
    if (this.staleSince === null || this.stopped) return;
    this.staleSince = null;
    this.changed(`cluster ${this.cluster.name}: its API answers again`);
  }

  private unreachable(error: ApiUnreachable): void {
    if (this.staleSince !== null || this.stopped) return;
    this.staleSince = new Date();
    this.changed(`${error.message}; ${this.listed ? "keeping its last snapshot" : "not listed yet: waiting for it to answer"}`);
  }

  private async list(listing: Listing): Promise<void> {
    const answer = await listListing(this.api, listing);
    if (this.stopped) return;
    if (isRefusal(answer)) {
      this.states.set(listing.path, { listing, resourceVersion: "", objects: new Map(), refused: answer });
      return;
    }
    if (answer.status === 404) throw new Rediscover(`${listing.path} is gone`);
    this.heardAt = Date.now();
    const objects = new Map<string, Json>();
    for (const page of answer.pages) for (const item of page.list.items ?? []) objects.set(keyOf(item), item);
    const before = this.states.get(listing.path);
    this.states.set(listing.path, { listing, resourceVersion: answer.resourceVersion, objects });
    if (!before || !this.listed) return;
    const differ = [...objects.keys(), ...[...before.objects.keys()].filter((k) => !objects.has(k))].filter((k) => {
      const was = before.objects.get(k);
      const now = objects.get(k);
      return !was || !now || readPart(listing, was) !== readPart(listing, now);
    });
    if (differ.length === 0) return;
    if (this.resyncing) {
      // The watch should have told these: a stream that died quietly, or events the server dropped.
      this.missedChanges += differ.length;
      const named = differ.slice(0, 5).map((k) => k.replace(/^\//, ""));
      this.options.note?.(
        `! cluster ${this.cluster.name}: the periodic relist found ${differ.length} ${listing.kind} change${differ.length === 1 ? "" : "s"} its watch had missed (${named.join(", ")}${differ.length > 5 ? ", ..." : ""}); the snapshot has them now`,
      );
    }
    this.changed(`cluster ${this.cluster.name}: ${listing.kind} listed again`);
  }

  /** Discovery, then every listing listed; kinds no longer served leave the snapshot. */
  private async listAll(): Promise<void> {
    const listings = await discoverListings((path) => readable(this.api, path));
    if (this.stopped) return;
    const gone = [...this.states.keys()].filter((path) => !listings.some((l) => l.path === path));
    for (const path of gone) this.states.delete(path);
    this.listings = listings;
    for (const listing of listings) {
      await this.list(listing);
      if (this.stopped) return;
    }
    if (gone.length > 0 && this.listed) this.changed(`cluster ${this.cluster.name}: ${gone.length} kinds no longer served`);
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.listAll().finally(() => (this.resyncing = false));
        if (signal.aborted) return;
        this.answered();
        if (!this.listed) {
          this.listed = true;
          this.changed(`cluster ${this.cluster.name}: listed`);
        }
        failures = 0;
        await this.watchRound(signal);
      } catch (error) {
        if (error instanceof Rediscover) {
          // A resource went away: discovery again, after a pause so a flapping CRD cannot spin.
          await this.sleep(BACKOFF_MS[0]!, signal);
          continue;
        }
        if (!(error instanceof ApiUnreachable)) throw error;
        this.unreachable(error);
        await this.sleep(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]!, signal);
      }
    }
  }

  /**
   * One watch per listing, each resuming where it ended, until one fails (every watch of the round then
   * ends, and the next round lists everything again) or the resync period ends the round.
   */
  private async watchRound(signal: AbortSignal): Promise<void> {
    const round = new AbortController();
    const stopRound = () => round.abort();
    signal.addEventListener("abort", stopRound, { once: true });
    const timer = setTimeout(() => {
      this.resyncing = true;
      stopRound();
    }, this.resyncMs);
    try {
      await Promise.all(
        this.listings
          .filter((listing) => !this.states.get(listing.path)?.refused)
          .map((listing) =>
            this.watch(listing, round.signal).catch((error: unknown) => {
              round.abort();
              throw error;
            }),
          ),
      );
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", stopRound);
      round.abort();
      this.streams.clear();
    }
  }

  /** Watches one listing until `signal` stops it; throws ApiUnreachable when the server stops answering, Rediscover on a 404. */
  private async watch(listing: Listing, signal: AbortSignal): Promise<void> {
    let quickEnds = 0;
    while (!signal.aborted) {
      const state = this.states.get(listing.path)!;
      const query = `watch=1&allowWatchBookmarks=true&timeoutSeconds=${WATCH_SECONDS}&resourceVersion=${encodeURIComponent(state.resourceVersion)}`;
      let relist = false;
      const opened = Date.now();
      this.streams.set(listing.path, opened);
      const answer = await this.api
        .stream(
          `${listing.path}?${query}`,
          (line) => {
            this.heardAt = Date.now();
            this.streams.set(listing.path, this.heardAt);
            const event = jsonOf(line, WATCH_EVENT, `${listing.path}: a watch event`);
            // 410 Gone (compacted past our version) or any other error: the watch is over; list again.
            if (event.type === "ERROR") {
              relist = true;
              throw new Error("watch ended by an ERROR event");
            }
            const rv = event.object.metadata?.resourceVersion;
            if (rv) state.resourceVersion = rv;
            if (event.type === "BOOKMARK") return;
            const key = keyOf(event.object);
            const before = state.objects.get(key);
            if (event.type === "DELETED") state.objects.delete(key);
            else state.objects.set(key, event.object);
            if (event.type === "DELETED" || !before || readPart(listing, before) !== readPart(listing, event.object))
              this.changed(
                `cluster ${this.cluster.name}: ${listing.kind} ${key.replace(/^\//, "")} ${event.type.toLowerCase()}`,
                this.serviceChange(listing, [before, event.object]),
              );
          },
          signal,
          WATCH_SECONDS * 1000 + WATCH_GRACE_MS,
        )
        .catch((error: unknown) => {
          // A line that is not an event (a stream cut mid-line by a proxy) ends the watch like an ERROR.
          if (error instanceof ApiUnreachable) throw error;
          relist = true;
          return { status: 200, body: "" };
        });
      if (signal.aborted) return;
      if (answer.status === 404) throw new Rediscover(`${listing.path} is gone`);
      if (answer.status !== 200 && answer.status !== 410) await readable(this.api, listing.path);
      this.answered();
      // A watch that keeps ending at once (a server that errors every watch) waits before the next.
      quickEnds = Date.now() - opened < 1000 ? quickEnds + 1 : 0;
      if (quickEnds > 1) await this.sleep(BACKOFF_MS[Math.min(quickEnds - 2, BACKOFF_MS.length - 1)]!, signal);
      if (relist || answer.status === 410) await this.list(listing);
    }
  }
}
