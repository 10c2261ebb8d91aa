import type { HttpMethod, RouteEntry } from "./endpoint.js";
import { decodePathSegment } from "./percent-decoding.js";

/**
 * The route table under /api/v1. As in Zulip, where a URL is resolved before its method
 * is looked at, a path belongs to its most specific template:
 *
 * - A template's segments are static text, a parameter (`:name`) or a rest parameter
 *   (`*name`, one segment or more). At the first segment where two templates differ,
 *   static text is more specific than a parameter, which is more specific than a rest.
 * - A request goes to the most specific route of its method that matches, unless a more
 *   specific template of another method really matches the path: then the path is that
 *   template's, and the answer is 405 with its methods (GET /messages/render is not
 *   GET /messages/{message_id}).
 * - "Really matches": parameters an endpoint declares as integers (pathInt) match digits
 *   only. A route of the request's own method still matches any segment, so its handler
 *   can answer "Invalid user_id" for /users/hamlet/status.
 * - 405 only for a path that really exists for another method; 404 otherwise.
 */

type Segment =
  | { kind: "static"; text: string }
  | { kind: "param"; name: string; int: boolean }
  | { kind: "rest"; name: string };

interface Route {
  endpoint: RouteEntry;
  segments: Segment[];
  /** Declaration order: the tie-breaker. */
  order: number;
}

export type Resolution =
  | { kind: "endpoint"; endpoint: RouteEntry; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: HttpMethod[] }
  | { kind: "not_found" };

const RANK = { static: 2, param: 1, rest: 0 } as const;

/** > 0 when `a` is more specific than `b`, < 0 when less, 0 when alike. */
function compareSpecificity(a: Route, b: Route): number {
  const length = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const diff = RANK[a.segments[i]!.kind] - RANK[b.segments[i]!.kind];
    if (diff !== 0) return diff;
  }
  return 0;
}

function parseTemplate(endpoint: RouteEntry): Segment[] {
  return endpoint.path
    .slice(1)
    .split("/")
    .map((text): Segment => {
      if (text.startsWith(":")) {
        const name = text.slice(1);
        return { kind: "param", name, int: endpoint.intPathParams.has(name) };
      }
      if (text.startsWith("*")) return { kind: "rest", name: text.slice(1) };
      return { kind: "static", text };
    });
}

/** The route's parameters if it matches; `strict` makes integer parameters digits only. */
function match(route: Route, parts: readonly string[], strict: boolean): Record<string, string> | null {
  const params: Record<string, string> = {};
  const { segments } = route;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.kind === "rest") {
      const rest = parts.slice(i).join("/");
      if (rest === "") return null;
      params[segment.name] = decodePathSegment(rest);
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (segment.kind === "static") {
      if (part !== segment.text) return null;
    } else {
      if (part === "" || (strict && segment.int && !/^\d+$/.test(part))) return null;
      params[segment.name] = decodePathSegment(part);
    }
  }
  return parts.length === segments.length ? params : null;
}

/** Methods a static path is resolved for in advance; others take the general walk. */
const TABLE_METHODS = ["GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"] as const;

export class Router {
  /**
   * Every path without parameters, resolved in advance for each method: most requests
   * (/users/me, /messages, /events, /register) are answered by one lookup. The general
   * walk below fills it, so both always agree.
   */
  private readonly table = new Map<string, ReadonlyMap<string, Resolution>>();
  /** Routes by their first segment's text (every chatd path starts with one). */
  private readonly byFirst = new Map<string, Route[]>();
  /** Routes starting with a parameter: tried for every path. */
  private readonly anyFirst: Route[] = [];

  constructor(endpoints: readonly RouteEntry[]) {
    endpoints.forEach((endpoint, order) => {
      const route = { endpoint, segments: parseTemplate(endpoint), order };
      const first = route.segments[0]!;
      if (first.kind !== "static") this.anyFirst.push(route);
      else this.byFirst.set(first.text, [...(this.byFirst.get(first.text) ?? []), route]);
    });
    for (const endpoint of endpoints) {
      if (this.table.has(endpoint.path) || /\/[:*]/.test(endpoint.path)) continue;
      const byMethod = new Map<string, Resolution>();
      for (const method of TABLE_METHODS) byMethod.set(method, frozen(this.walk(method, endpoint.path)));
      this.table.set(endpoint.path, byMethod);
    }
  }

  /** Where a request goes; `path` is relative to /api/v1 ("/users/me"). HEAD is served as GET. */
  resolve(method: string, path: string): Resolution {
    return this.table.get(path)?.get(method) ?? this.walk(method, path);
  }

  private walk(method: string, path: string): Resolution {
    if (!path.startsWith("/")) return { kind: "not_found" };
    const parts = path.slice(1).split("/");
    if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
    const wanted = method === "HEAD" ? "GET" : method;
    const candidates = [...(this.byFirst.get(parts[0]!) ?? []), ...this.anyFirst];

    let best: { route: Route; params: Record<string, string>; strict: boolean } | undefined;
    const existing: Route[] = [];
    for (const route of candidates) {
      const params = match(route, parts, false);
      if (!params) continue;
      const strict = match(route, parts, true) !== null;
      if (strict) existing.push(route);
      if (route.endpoint.method !== wanted) continue;
      const better =
        !best ||
        compareSpecificity(route, best.route) > 0 ||
        (compareSpecificity(route, best.route) === 0 && strict && !best.strict);
      if (better) best = { route, params, strict };
    }
    const top = existing.reduce<Route | undefined>(
      (found, route) => (!found || compareSpecificity(route, found) > 0 ? route : found),
      undefined,
    );
    if (best && (!top || compareSpecificity(best.route, top) >= 0)) {
      return { kind: "endpoint", endpoint: best.route.endpoint, params: best.params };
    }
    if (!top) return { kind: "not_found" };
    const allowed = existing
      .filter((route) => compareSpecificity(route, top) === 0)
      .sort((a, b) => a.order - b.order)
      .map((route) => route.endpoint.method);
    return { kind: "method_not_allowed", allowed: [...new Set(allowed)] };
  }
}

/** A resolution shared by every request to its path: nobody may change it. */
function frozen(resolution: Resolution): Resolution {
  if (resolution.kind === "endpoint") Object.freeze(resolution.params);
  if (resolution.kind === "method_not_allowed") Object.freeze(resolution.allowed);
  return Object.freeze(resolution);
}
