import { loadEndpoints } from "../../src/api/index.js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  fuzzRequest,
  illFormedRequest,
  ILL_FORMED_KINDS,
  pathParams,
  type IllFormedKind,
  pick,
  seededRandom,
  type FuzzRequest,
  type Route,
} from "./fuzz-cases.js";

/**
 * The fuzz pass of `npm run test:faults`: malformed requests to every route as each
 * actor, checking every answer: never a 5xx, and every error in Zulip's envelope.
 */

export interface Actor {
  readonly name: string;
  /** The Authorization header; null for anonymous. */
  readonly auth: string | null;
}

export interface FuzzFigures {
  requests: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  nonEnvelope: number;
  transportErrors: number;
  failures: string[];
}

/**
 * Routes a fuzzer must not call as an actor it still needs: they end that actor's session
 * (new API keys, self-deactivation) on well-formed input, which the fuzzer sometimes sends.
 */
const SESSION_ENDING = new Set(["POST /users/me/api_key/regenerate", "DELETE /users/me"]);

const OPENAPI_PATHS = fileURLToPath(new URL("../../../test/api/zulip-openapi-paths.txt", import.meta.url));

/**
 * Every route of chatd, then every (method, path) of Zulip's API description chatd does not
 * route (they must get Zulip's 404 or 405 envelope). `{user_id}`-style parameters ending in
 * `_id` are integers there. chatd's endpoints are loaded for their parameter names (the
 * route table does not hold them).
 */
export async function fuzzedRoutes(): Promise<Route[]> {
  const endpoints = await loadEndpoints();
  const own: Route[] = ownRoutes(endpoints);
  const known = new Set(
    endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path.replace(/:\w+/g, ":")}`),
  );
  const documented = readFileSync(OPENAPI_PATHS, "utf8")
    .split("\n")
    .filter((line) => /^[A-Z]+ \//.test(line))
    .map((line): Route => {
      const [method = "", path = ""] = line.split(" ");
      const routerPath = path.replace(/\{(\w+)\}/g, ":$1");
      const names = [...routerPath.matchAll(/:(\w+)/g)].map((match) => match[1]!);
      return {
        method,
        path: routerPath,
        intPathParams: new Set(names.filter((name) => name.endsWith("_id"))),
        paramNames: names,
      };
    })
    .filter((route) => !known.has(`${route.method} ${route.path.replace(/:\w+/g, ":")}`));
  return [...own, ...documented];
}

/** chatd's own routes, but those that would end the caller's session. */
const ownRoutes = (endpoints: readonly Route[]): Route[] =>
  endpoints.filter((endpoint) => !SESSION_ENDING.has(`${endpoint.method} ${endpoint.path}`));

async function send(baseUrl: string, request: FuzzRequest): Promise<{ status: number; text: string }> {
  const res = await fetch(new URL(request.path, baseUrl), {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: "manual",
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

/** What is wrong with an answer, or null. */
export function judge(status: number, text: string): string | null {
  if (status >= 500) return `HTTP ${status}`;
  if (status >= 300 && status < 400) return null; // redirects to files
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return status >= 400 ? "error without a JSON body" : null;
  }
  if (typeof body !== "object" || body === null) return "JSON body that is not an object";
  const { result, msg, code } = body as Record<string, unknown>;
  if (status >= 400) {
    if (result !== "error" || typeof msg !== "string" || typeof code !== "string") {
      return "error that is not Zulip's envelope";
    }
  } else if (result !== "success" || typeof msg !== "string") return "success that is not Zulip's envelope";
  return null;
}

const emptyFigures = (): FuzzFigures => ({
  requests: 0,
  byStatus: {},
  serverErrors: 0,
  nonEnvelope: 0,
  transportErrors: 0,
  failures: [],
});

/** Sends one request and counts its answer: the text too, or null when it never came. */
async function sendJudged(
  baseUrl: string,
  request: FuzzRequest,
  where: string,
  figures: FuzzFigures,
): Promise<string | null> {
  figures.requests++;
  try {
    const { status, text } = await send(baseUrl, request);
    figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1;
    const problem = judge(status, text);
    if (problem) {
      if (status >= 500) figures.serverErrors++;
      else figures.nonEnvelope++;
      figures.failures.push(`${where}: ${problem}: ${text.slice(0, 200)}`);
    }
    return text;
  } catch (err) {
    figures.transportErrors++;
    figures.failures.push(`${where}: ${(err as Error).message}`);
    return null;
  }
}

export async function fuzzPass(
  baseUrl: string,
  actors: readonly Actor[],
  options: { requests: number; seed: number; concurrency: number; ids: readonly string[] },
): Promise<FuzzFigures> {
  const random = seededRandom(options.seed);
  const endpoints = await fuzzedRoutes();
  const figures = emptyFigures();
  // Built up front from the seed, so the same seed sends the same requests in any timing.
  const planned = Array.from({ length: options.requests }, (_, i) => {
    const actor = actors[i % actors.length]!;
    const endpoint = endpoints[Math.floor(i / actors.length) % endpoints.length] ?? pick(random, endpoints);
    return { actor, request: fuzzRequest(random, endpoint, actor.auth, options.ids) };
  });
  let next = 0;
  const worker = async () => {
    while (next < planned.length) {
      const { actor, request } = planned[next++]!;
      const where = `${actor.name} ${request.method} ${request.path.slice(0, 120)} (${request.label})`;
      await sendJudged(baseUrl, request, where, figures);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return figures;
}

/** Required parameters a sweep request may fill in before its target is read. */
const MAX_FILLS = 6;

/**
 * Ill-formed Unicode in every parameter of every chatd route, one parameter and one of its
 * forms at a time, as `actor` (the owner reaches the most handlers). Random values rarely
 * reach a handler with the one bad value it chokes on (an email check behind required
 * parameters); here each request refused for a missing parameter is sent again with it
 * filled in.
 */
export async function illFormedSweep(
  baseUrl: string,
  actor: Actor,
  options: { seed: number; concurrency: number; ids: readonly string[] },
): Promise<FuzzFigures> {
  const kinds = Object.keys(ILL_FORMED_KINDS) as IllFormedKind[];
  // Each known ID in turn where the path takes one: a user's, a message's, a channel's.
  const targets = ownRoutes(await loadEndpoints()).flatMap((route) =>
    (pathParams(route).length > 0 && options.ids.length > 0 ? options.ids : [undefined]).flatMap((pathId) =>
      route.paramNames.flatMap((target) => kinds.map((kind) => ({ route, target, kind, pathId }))),
    ),
  );
  const figures = emptyFigures();
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const index = next++;
      const { route, target, kind, pathId } = targets[index]!;
      // One generator per target: the same seed sends the same requests in any timing.
      const random = seededRandom(options.seed * 7919 + index);
      const fills: string[] = [];
      for (;;) {
        const request = illFormedRequest(random, route, target, kind, fills, actor.auth, pathId);
        if (!request) break;
        const where = `${actor.name} ${request.method} ${request.path.slice(0, 120)} (${request.label})`;
        const text = await sendJudged(baseUrl, request, where, figures);
        const missing = missingParam(text);
        if (missing === null || missing === target || fills.includes(missing) || fills.length >= MAX_FILLS)
          break;
        fills.push(missing);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return figures;
}

/** The parameter a REQUEST_VARIABLE_MISSING answer names, else null. */
function missingParam(text: string | null): string | null {
  try {
    const body = JSON.parse(text ?? "") as { code?: unknown; var_name?: unknown };
    return body.code === "REQUEST_VARIABLE_MISSING" && typeof body.var_name === "string"
      ? body.var_name
      : null;
  } catch {
    return null;
  }
}
