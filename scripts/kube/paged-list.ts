/**
 * @module A collection listed in pages, as client-go's pager lists it: `limit=500` a request and the
 * server's `continue` token to the next page, so a cluster with tens of thousands of EndpointSlices is read
 * as many answers of a few hundred kilobytes, never one of hundreds of megabytes. A continue token the
 * server no longer honours (410 Expired: etcd compacted past the list's snapshot while it was read) starts
 * the list again from its first page; after a few such restarts it is read whole, as client-go falls back to.
 */
import { type ObjectList, OBJECT_LIST } from "./api-answers";
import type { ApiAnswer } from "./api-client";
import { jsonOf } from "../lib/json";

/** Objects a page, as client-go's pager asks (`DefaultPageSize`). */
export const PAGE_SIZE = 500;
/** How many times an expired list starts again in pages before it is read whole. */
const RESTARTS = 3;

/** One page: its text (parsed again by the manifest reader, which finds each object's line) and the List it holds. */
export interface ListPage {
  body: string;
  list: ObjectList;
}

/** A listing's pages, or the status it answered instead (404: the resource is gone). */
export interface PagedList {
  status: number;
  pages: ListPage[];
  /** The list's resourceVersion, where a watch of it resumes. */
  resourceVersion: string;
}

/**
 * Lists `path` in pages of `pageSize`. `get` answers a GET (and throws on what stops a read: a refusal, a
 * server that cannot be reached); any status but 200 and 410 is returned as it is.
 */
export async function listInPages(get: (path: string) => Promise<ApiAnswer>, path: string, pageSize = PAGE_SIZE): Promise<PagedList> {
  for (let restart = 0; ; restart++) {
    const paged = restart <= RESTARTS;
    const pages: ListPage[] = [];
    let token: string | undefined;
    let expired = false;
    do {
      const query = paged ? `?limit=${pageSize}${token ? `&continue=${encodeURIComponent(token)}` : ""}` : "";
      const answer = await get(`${path}${query}`);
      if (answer.status === 410 && token) {
        expired = true;
        break;
      }
      if (answer.status !== 200) return { status: answer.status, pages: [], resourceVersion: "" };
      const list = jsonOf(answer.body, OBJECT_LIST, `${path}: the list`);
      pages.push({ body: answer.body, list });
      token = list.metadata?.continue || undefined;
    } while (token);
    if (!expired) return { status: 200, pages, resourceVersion: pages.at(-1)?.list.metadata?.resourceVersion ?? "" };
  }
}
