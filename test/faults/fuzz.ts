import { loadEndpoints } from "../../src/api/index.js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fuzzRequest, pick, seededRandom, type FuzzRequest, type Route } from "./fuzz-cases.js";

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
  const own: Route[] = endpoints.filter(
    (endpoint) => !SESSION_ENDING.has(`${endpoint.method} ${endpoint.path}`),
  );
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

export async function fuzzPass(
  baseUrl: string,
  actors: readonly Actor[],
  options: { requests: number; seed: number; concurrency: number; ids: readonly string[] },
): Promise<FuzzFigures> {
  const random = seededRandom(options.seed);
  const endpoints = await fuzzedRoutes();
  const figures: FuzzFigures = {
    requests: 0,
    byStatus: {},
    serverErrors: 0,
    nonEnvelope: 0,
    transportErrors: 0,
    failures: [],
  };
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
      figures.requests++;
      const where = `${actor.name} ${request.method} ${request.path.slice(0, 120)} (${request.label})`;
      try {
        const { status, text } = await send(baseUrl, request);
        figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1;
        const problem = judge(status, text);
        if (problem) {
          if (status >= 500) figures.serverErrors++;
          else figures.nonEnvelope++;
          figures.failures.push(`${where}: ${problem}: ${text.slice(0, 200)}`);
        }
      } catch (err) {
        figures.transportErrors++;
        figures.failures.push(`${where}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return figures;
}
