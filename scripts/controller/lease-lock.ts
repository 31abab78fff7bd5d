/**
 * @module Leader election's record kept in a `coordination.k8s.io/v1` Lease, as client-go's
 * `resourcelock.LeaseLock` keeps it: get it, create it when it is missing, and replace it (PUT) with the
 * resourceVersion last read, so that of two candidates writing at once one gets 409 Conflict and loses
 * (optimistic concurrency; the API server is the referee). Times are MicroTime, as the Lease API types them.
 */
import { int, obj, opt, str } from "../../src/table/structural-schema";
import { ApiUnreachable, type KubeApi, statusMessage } from "../kube/api-client";
import { jsonOf } from "../lib/json";
import { UserError } from "../lib/user-error";

/** What leader election reads and writes of a Lease's spec (client-go's LeaderElectionRecord). */
export interface LeaseRecord {
  /** Who holds it; empty when nobody does (released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** MicroTime, e.g. 2026-11-28T10:00:00.123000Z */
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

interface LeaseObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; [field: string]: unknown };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}
const LEASE = obj<LeaseObject>(
  {
    metadata: opt(obj({ name: opt(str()), namespace: opt(str()), resourceVersion: opt(str()) }, { open: true })),
    spec: opt(
      obj(
        {
          holderIdentity: opt(str()),
          leaseDurationSeconds: opt(int()),
          acquireTime: opt(str()),
          renewTime: opt(str()),
          leaseTransitions: opt(int()),
        },
        { open: true },
      ),
    ),
  },
  { open: true },
);

/** A Lease's MicroTime: RFC 3339 with six fraction digits, as metav1.MicroTime writes it. */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/** The record a Lease spec holds (absent fields as client-go reads them: empty, zero). */
export const recordOf = (lease: LeaseObject): LeaseRecord => ({
  holderIdentity: lease.spec?.holderIdentity ?? "",
  leaseDurationSeconds: lease.spec?.leaseDurationSeconds ?? 0,
  ...(lease.spec?.acquireTime ? { acquireTime: lease.spec.acquireTime } : {}),
  ...(lease.spec?.renewTime ? { renewTime: lease.spec.renewTime } : {}),
  leaseTransitions: lease.spec?.leaseTransitions ?? 0,
});

/** The write lost a race (409 Conflict, or AlreadyExists on create): another candidate wrote first. */
export class LeaseConflict extends Error {
  override name = "LeaseConflict";
}

/** A record as it was read: the record and its text, whose change is what tells a live leader (client-go's observedRawRecord). */
export interface ReadLease {
  record: LeaseRecord;
  raw: string;
}

/** The election's Lease in one namespace of one cluster, read and written with optimistic concurrency. */
export class LeaseLock {
  /** The Lease as last read or written: its resourceVersion is the next update's precondition. */
  private lease: LeaseObject | null = null;
  private readonly collection: string;

  constructor(
    readonly api: KubeApi,
    readonly namespace: string,
    readonly name: string,
  ) {
    this.collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  }

  /** `lease <namespace>/<name> in cluster <name> (<server>)`, for messages. */
  get describe(): string {
    return `Lease ${this.namespace}/${this.name} in ${this.api.where}`;
  }

  /** The record, or null when there is no Lease yet. */
  async get(timeoutMs: number): Promise<ReadLease | null> {
    const answer = await this.api.request("GET", `${this.collection}/${encodeURIComponent(this.name)}`, undefined, timeoutMs);
    if (answer.status === 404 && !/the server could not find the requested resource/.test(answer.body)) return null;
    this.check(answer, "get");
    this.lease = jsonOf(answer.body, LEASE, `${this.describe}: the Lease`);
    const record = recordOf(this.lease);
    return { record, raw: JSON.stringify(record) };
  }

  async create(record: LeaseRecord, timeoutMs: number): Promise<void> {
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.name, namespace: this.namespace },
      spec: record,
    };
    const answer = await this.api.request("POST", this.collection, { type: "application/json", text: JSON.stringify(lease) }, timeoutMs);
    this.check(answer, "create");
    this.lease = jsonOf(answer.body, LEASE, `${this.describe}: the Lease created`);
  }

  /** Replaces the record, on the condition that nobody wrote the Lease since it was last read. */
  async update(record: LeaseRecord, timeoutMs: number): Promise<void> {
    if (!this.lease) throw new Error("the Lease is updated only after it was read or created");
    const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...this.lease, spec: { ...this.lease.spec, ...record } };
    const path = `${this.collection}/${encodeURIComponent(this.name)}`;
    const answer = await this.api.request("PUT", path, { type: "application/json", text: JSON.stringify(lease) }, timeoutMs);
    this.check(answer, "update");
    this.lease = jsonOf(answer.body, LEASE, `${this.describe}: the Lease updated`);
  }

  /** An answer that is not a success: a race lost, a refusal (with the rule to grant), or a failing server. */
  private check(answer: { status: number; body: string }, verb: "get" | "create" | "update"): void {
    if (answer.status === 200 || answer.status === 201) return;
    const message = statusMessage(answer).slice(0, 200);
    if (answer.status === 409) throw new LeaseConflict(`${this.describe}: ${message}`);
    if (answer.status === 401 || answer.status === 403)
      throw new UserError(
        `${this.api.where}: not allowed to ${verb} the Lease ${this.namespace}/${this.name} (HTTP ${answer.status}: ${message})`,
        `grant get, create and update on leases (coordination.k8s.io) in namespace ${this.namespace}: \`kedge manifests\` prints that Role`,
      );
    if (answer.status === 404 && /namespaces? "[^"]*" not found/.test(message))
      throw new UserError(
        `${this.api.where}: the namespace ${this.namespace} of the Lease does not exist`,
        `create it (kubectl create namespace ${this.namespace}), or name another with --leader-elect-namespace`,
      );
    if (answer.status === 404)
      throw new UserError(
        `${this.api.where}: the API server does not serve coordination.k8s.io/v1 Leases (HTTP 404: ${message})`,
        "name a cluster that does with --leader-elect-context (Kubernetes 1.14 and later serve them)",
      );
    throw new ApiUnreachable(
      `${this.api.where}: ${verb} of the Lease ${this.namespace}/${this.name} answered HTTP ${answer.status} (${message})`,
    );
  }
}
