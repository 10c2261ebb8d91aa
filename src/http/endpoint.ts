import type { ServerResponse } from "node:http";
import type { Context } from "koa";
import type { App } from "../app.js";
import type { UserRow } from "../db/rows.js";
import { JsonableError, badRequest, mustBeAdmin, mustBeOwner } from "../errors.js";
import type { RealmSnapshot } from "../world/realm.js";
import { isAdminRole, isOwnerRole } from "../world/roles.js";
import { authenticate, authenticateSession, type AuthenticateOptions, type Authenticated } from "./auth.js";
import { viaSession } from "./prefixes.js";
import { koaExchange, type Exchange } from "./exchange.js";
import { parseParams, type ParamSpec, type ParamValues } from "../params.js";
import { encodeWithRawJson } from "../lib/raw-json.js";
import { receiveUpload, type UploadLimits, type UploadedFile } from "./upload.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/**
 * Who may call an endpoint. There is no default: every endpoint says so explicitly.
 * - anonymous: no authentication (an Authorization header is ignored);
 * - user: any active user, bots and guests included;
 * - admin / owner: refused for others with UNAUTHORIZED_PRINCIPAL.
 */
export type AuthLevel = "anonymous" | "user" | "admin" | "owner";

export interface RequestInfo {
  /** Client name, from the `client` parameter or the User-Agent's product token. */
  readonly clientName: string;
  readonly userAgent: string;
  /**
   * Calls `listener` if the client disconnects before its answer is written (a long-poll
   * stops waiting); the returned function stops listening. One listener on the response,
   * where an AbortSignal cost every parked poll an AbortController, an EventTarget and
   * their listener records.
   */
  whenGone(listener: () => void): () => void;
}

export interface AuthedContext<P> {
  app: App;
  user: UserRow;
  /** The web session the request came with (/json/ only). */
  sessionId: number | null;
  realm: RealmSnapshot;
  params: P;
  request: RequestInfo;
  /** The files of a multipart upload (endpoints with `upload` only; else empty). */
  files: readonly UploadedFile[];
}

export interface AnonymousContext<P> {
  app: App;
  params: P;
  request: RequestInfo;
}

type Handler<A extends AuthLevel, P> = (
  ctx: A extends "anonymous" ? AnonymousContext<P> : AuthedContext<P>,
) => Promise<Record<string, unknown>>;

export interface EndpointSpec<A extends AuthLevel, S extends ParamSpec> {
  method: HttpMethod;
  /** Path under /api/v1: `:name` for a segment, `*name` for the rest (see router.ts). */
  path: string;
  auth: A;
  /**
   * May an incoming-webhook bot call it? Zulip's allow_incoming_webhooks: only sending
   * messages (and the integrations' webhook URLs); every other endpoint refuses them.
   */
  incomingWebhookBots?: boolean;
  /**
   * Its answer holds an API key in clear: refused under /json/, so no key ever reaches a
   * web page (a script injected there could not carry one away).
   */
  issuesApiKey?: boolean;
  params: S;
  /**
   * The endpoint takes a file: its multipart body is streamed to a temporary file after
   * authentication, within these limits (http/upload.ts), instead of going through the
   * default body parser. Authenticated endpoints only.
   */
  upload?: A extends "anonymous" ? never : (app: App, user: UserRow) => UploadLimits;
  handler: Handler<A, ParamValues<S>>;
}

/**
 * What the router and the request carriers use of an endpoint: all an entry of the route
 * table (api/index.ts) knows before the endpoint's module loads.
 */
export interface RouteEntry {
  readonly method: HttpMethod;
  readonly path: string;
  readonly auth: AuthLevel;
  /** Path parameters that are integer IDs: the router matches them to digits only. */
  readonly intPathParams: ReadonlySet<string>;
  /** Parses its own (multipart, streamed) body: the default body parser skips it. */
  readonly streamsBody: boolean;
  /** Answers through Koa's context (every request the plain path below does not take). */
  run(app: App, ctx: Context, pathParams: Readonly<Record<string, string>>): Promise<void>;
  /**
   * The same answer's success body, for any carrier of the request (http/plain-api.ts
   * answers requests without a body over plain Node with it); absent where an endpoint
   * needs Koa's context.
   */
  readonly answer?: (
    app: App,
    exchange: Exchange,
    pathParams: Readonly<Record<string, string>>,
  ) => Promise<Record<string, unknown>>;
}

/** An endpoint as its module defines it. */
export interface Endpoint extends RouteEntry {
  /** Every parameter it reads, path parameters included (the fault tests fuzz them). */
  readonly paramNames: readonly string[];
}

export function defineEndpoint<A extends AuthLevel, S extends ParamSpec>(spec: EndpointSpec<A, S>): Endpoint {
  const answer = async (
    app: App,
    exchange: Exchange,
    pathParams: Readonly<Record<string, string>>,
  ): Promise<Record<string, unknown>> => {
    if (spec.issuesApiKey && exchange.viaSession) throw apiKeysNotForPages();
    const request = requestInfo(exchange);
    const raw = exchange.params();
    if (spec.auth === "anonymous") {
      setHeaders(exchange, app.rateLimits.enforce("api_by_ip", app.clientIp(exchange.req)));
      const parsed = parseParams(spec.params, raw, pathParams);
      const data = (spec.handler as Handler<"anonymous", ParamValues<S>>)({
        app,
        params: parsed.values,
        request,
      });
      return successBody(data, parsed.ignored);
    }
    const { user, realm, sessionId } = await authenticateCounted(app, exchange, {
      allowIncomingWebhookBots: spec.incomingWebhookBots === true,
    });
    exchange.setUserId(user.id);
    setHeaders(exchange, app.rateLimits.enforce("api_by_user", String(user.id)));
    if (spec.auth === "admin" && !isAdminRole(user.role)) throw mustBeAdmin();
    if (spec.auth === "owner" && !isOwnerRole(user.role)) throw mustBeOwner();
    const handler = spec.handler as Handler<"user", ParamValues<S>>;
    if (!spec.upload) {
      const parsed = parseParams(spec.params, raw, pathParams);
      const data = handler({ app, user, sessionId, realm, params: parsed.values, request, files: [] });
      return successBody(data, parsed.ignored);
    }
    const upload = await receiveUpload(exchange.req, app.uploads.tempDir(), spec.upload(app, user));
    try {
      for (const [key, value] of upload.fields) raw.set(key, value);
      const parsed = parseParams(spec.params, raw, pathParams);
      const data = handler({
        app,
        user,
        sessionId,
        realm,
        params: parsed.values,
        request,
        files: upload.files,
      });
      return await successBody(data, parsed.ignored);
    } finally {
      await upload.discard();
    }
  };
  return {
    method: spec.method,
    path: spec.path,
    auth: spec.auth,
    intPathParams: new Set(
      Object.entries(spec.params)
        .filter(([, param]) => param.intSegment)
        .map(([name]) => name),
    ),
    streamsBody: spec.upload !== undefined,
    paramNames: Object.keys(spec.params),
    answer,
    async run(app, ctx, pathParams) {
      const body = await answer(app, koaExchange(ctx, viaSession(ctx.path)), pathParams);
      ctx.status = 200;
      // Values a handler encoded ahead of time (RawJson) go out as they are.
      const encoded = encodeWithRawJson(body);
      if (encoded) ctx.type = "application/json";
      ctx.body = encoded ?? body;
    },
  };
}

/**
 * A handler's data as the success body. Chained rather than awaited: a handler that waits
 * long (a parked long-poll) then holds no suspended frame of `answer` with all its locals.
 */
function successBody(
  data: Promise<Record<string, unknown>>,
  ignored: string[],
): Promise<Record<string, unknown>> {
  return data.then((values) => ({
    result: "success",
    msg: "",
    ...values,
    ...(ignored.length > 0 ? { ignored_parameters_unsupported: ignored } : {}),
  }));
}

/** Rate-limit counts: none at all while rate limiting is off. */
function setHeaders(exchange: Exchange, headers: Record<string, string>): void {
  for (const _ in headers) return exchange.setHeaders(headers);
}

/**
 * A failed authentication is an unauthenticated request: it counts against the client
 * IP's api_by_ip limit, and beyond it is answered RATE_LIMIT_HIT. A success never touches
 * the IP's count, so other users behind the same address are not affected.
 */
function authenticateCounted(
  app: App,
  exchange: Exchange,
  options: AuthenticateOptions,
): Promise<Authenticated & { sessionId: number | null }> {
  if (exchange.viaSession) {
    const request = { method: exchange.req.method ?? "GET", header: (name: string) => exchange.header(name) };
    return countingFailures(app, exchange, () => authenticateSession(app, request, options));
  }
  return countingFailures(app, exchange, () =>
    authenticate(app, exchange.header("authorization") || undefined, options).then(withoutSession),
  );
}

const withoutSession = (found: Authenticated) => ({ ...found, sessionId: null });

/**
 * Runs an authentication; its failure counts against the client IP (see above). Chained
 * rather than awaited: every request comes through here, and an async frame each cost a
 * generator and a promise more.
 */
export function countingFailures<T>(
  app: App,
  exchange: Pick<Exchange, "req" | "setHeaders">,
  auth: () => Promise<T>,
): Promise<T> {
  // `auth` is an async function: its failures are rejections, never thrown here.
  return auth().catch((err: unknown) => {
    if (err instanceof JsonableError) {
      exchange.setHeaders(app.rateLimits.enforce("api_by_ip", app.clientIp(exchange.req)));
    }
    throw err;
  });
}

function requestInfo(exchange: Exchange): RequestInfo {
  const userAgent = exchange.header("user-agent");
  let clientName = exchange.clientParam() ?? clientFromUserAgent(userAgent);
  // As Zulip's browser views: the web client is "website" (a UI client: its sender's own
  // messages start read), unless a Zulip app wraps it and says so.
  if (exchange.viaSession && !clientName.startsWith("Zulip")) clientName = "website";
  return new Info(clientName.slice(0, 30), userAgent, exchange.res);
}

/**
 * A class, not an object literal with methods: each literal's own closures gave every
 * request a new hidden class, allocated in the old generation (measured: about 3 KB a
 * request that only a full collection reclaimed).
 */
class Info implements RequestInfo {
  constructor(
    readonly clientName: string,
    readonly userAgent: string,
    private readonly res: ServerResponse,
  ) {}

  whenGone(listener: () => void): () => void {
    const res = this.res;
    // Gone before the wait began: 'close' was already emitted.
    if (res.destroyed && !res.writableFinished) {
      listener();
      return () => {};
    }
    // 'close' also follows a finished answer: only an unfinished one means the client left.
    const onClose = () => {
      if (!res.writableFinished) listener();
    };
    res.on("close", onClose);
    return () => res.off("close", onClose);
  }
}

/** Zulip names the client by the User-Agent's first product token ("ZulipPython/0.9" -> "ZulipPython"). */
export function clientFromUserAgent(userAgent: string): string {
  let name = clientNames.get(userAgent);
  if (name === undefined) {
    name = /^([^/\s(]+)/.exec(userAgent.trim())?.[1] ?? "API";
    // A few User-Agents send nearly every request; a flood of distinct ones starts over, and
    // long ones are not kept (the cache stays small whatever clients send).
    if (clientNames.size >= 1000) clientNames.clear();
    if (userAgent.length <= 256) clientNames.set(userAgent, name);
  }
  return name;
}

const clientNames = new Map<string, string>();

const apiKeysNotForPages = () =>
  badRequest(
    "API keys are not given to the web client: use /api/v1 (with your email and password) to get one.",
  );

/** Raised by the router for paths no endpoint serves. */
export const routeNotFound = () => new JsonableError("Not Found", "BAD_REQUEST", 404);
