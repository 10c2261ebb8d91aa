/**
 * The one error class of the API. Every expected failure is a JsonableError with
 * Zulip's error code and HTTP status; anything else that escapes a handler is a bug
 * and becomes a bare 500.
 */
export type ErrorCode =
  | "BAD_REQUEST"
  | "REQUEST_VARIABLE_MISSING"
  | "REQUEST_VARIABLE_INVALID"
  | "REQUEST_CONFUSING_VAR"
  | "BAD_NARROW"
  | "EXPECTATION_MISMATCH"
  | "UNAUTHORIZED"
  | "UNAUTHORIZED_PRINCIPAL"
  | "INVALID_API_KEY"
  | "USER_DEACTIVATED"
  | "REALM_DEACTIVATED"
  | "AUTHENTICATION_FAILED"
  | "BAD_EVENT_QUEUE_ID"
  | "NOT_FOUND"
  | "STREAM_DOES_NOT_EXIST"
  | "CHANNEL_ALREADY_EXISTS"
  | "REACTION_ALREADY_EXISTS"
  | "REACTION_DOES_NOT_EXIST"
  | "CANNOT_DEACTIVATE_GROUP_IN_USE"
  | "CANNOT_DEACTIVATE_LAST_USER"
  | "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"
  | "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
  | "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"
  | "PUSH_SERVICE_NOT_CONFIGURED"
  | "INVALID_PUSH_DEVICE_TOKEN"
  | "NO_ACTIVE_PUSH_DEVICE"
  | "INCOMPATIBLE_PARAMETERS"
  | "RATE_LIMIT_HIT"
  | "PAYLOAD_TOO_LARGE"
  | "BAD_IMAGE"
  | "REALM_UPLOAD_QUOTA"
  | "METHOD_NOT_ALLOWED"
  | "INVALID_JSON"
  | "UNSUPPORTED_WEBHOOK_EVENT_TYPE"
  | "ANOMALOUS_WEBHOOK_PAYLOAD"
  | "MISSING_HTTP_EVENT_HEADER"
  | "CSRF_FAILED"
  | "INVITATION_FAILED"
  | "INTERNAL_SERVER_ERROR";

export class JsonableError extends Error {
  constructor(
    message: string,
    readonly code: ErrorCode = "BAD_REQUEST",
    readonly status = 400,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "JsonableError";
  }

  toBody(): Record<string, unknown> {
    return { ...this.data, result: "error", msg: this.message, code: this.code };
  }
}

const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="zulip"' };

/**
 * Zulip's RateLimitedError: HTTP 429 with `retry-after` (seconds, fractional) in the body
 * and as the Retry-After header (whole seconds, rounded up), plus its X-RateLimit-* headers.
 */
export const rateLimitHit = (secsToFreedom: number, headers: Record<string, string>) =>
  new JsonableError(
    "API usage exceeded rate limit",
    "RATE_LIMIT_HIT",
    429,
    { "retry-after": Math.round(secsToFreedom * 1000) / 1000 },
    { ...headers, "Retry-After": String(Math.max(1, Math.ceil(secsToFreedom))) },
  );

export const badRequest = (message: string, data: Record<string, unknown> = {}) =>
  new JsonableError(message, "BAD_REQUEST", 400, data);

/** Zulip's RequestVariableConversionError: a value of the right type that means nothing. */
export const badValue = (name: string, value: unknown) =>
  new JsonableError(`Bad value for '${name}': ${String(value)}`, "REQUEST_VARIABLE_INVALID", 400, {
    var_name: name,
    bad_value: value,
  });

export const notFound = (message: string) => new JsonableError(message, "NOT_FOUND", 404);

export const missingArgument = (name: string) =>
  new JsonableError(`Missing '${name}' argument`, "REQUEST_VARIABLE_MISSING", 400, {
    var_name: name,
  });

export const unauthorized = (message: string) =>
  new JsonableError(message, "UNAUTHORIZED", 401, {}, BASIC_CHALLENGE);

export const notLoggedIn = () => unauthorized("Not logged in: API authentication or user session required");

/** /json/ requests authenticate by session: a Basic challenge would make a browser ask for a password. */
export const SESSION_CHALLENGE: Readonly<Record<string, string>> = {
  "WWW-Authenticate": 'Session realm="zulip"',
};

export const sessionRequired = () =>
  new JsonableError(
    "Not logged in: API authentication or user session required",
    "UNAUTHORIZED",
    401,
    {},
    SESSION_CHALLENGE,
  );

export const csrfFailed = (reason: string) =>
  new JsonableError(`CSRF error: ${reason}`, "CSRF_FAILED", 403, { reason });

export const invalidApiKey = (message = "Invalid API key") =>
  new JsonableError(message, "INVALID_API_KEY", 401, {}, BASIC_CHALLENGE);

export const userDeactivated = () =>
  new JsonableError("Account is deactivated", "USER_DEACTIVATED", 401, {}, BASIC_CHALLENGE);

export const realmDeactivated = () =>
  new JsonableError("This organization is deactivated", "REALM_DEACTIVATED", 401, {}, BASIC_CHALLENGE);

export const mustBeAdmin = () =>
  new JsonableError("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL", 400);

export const mustBeOwner = () =>
  new JsonableError("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL", 400);

/** Zulip's CannotDeactivateLastUserError: the last human owner, or the realm's last active user. */
export const cannotDeactivateLastUser = (isLastOwner: boolean) => {
  const entity = isLastOwner ? "organization owner" : "user";
  return new JsonableError(`Cannot deactivate the only ${entity}.`, "CANNOT_DEACTIVATE_LAST_USER", 400, {
    is_last_owner: isLastOwner,
    entity,
  });
};

export const insufficientPermission = () => badRequest("Insufficient permission");

export const notAllowedForGuests = () => badRequest("Not allowed for guest users");

/** What still uses a user group, as Zulip reports it when deactivation is refused. */
export type GroupInUseObjection =
  | { type: "subgroup"; supergroup_ids: number[] }
  | { type: "channel"; channel_id: number; settings: string[] }
  | { type: "user_group"; group_id: number; settings: string[] }
  | { type: "realm"; settings: string[] };

export const cannotDeactivateGroupInUse = (objections: GroupInUseObjection[]) =>
  new JsonableError("Cannot deactivate user group in use.", "CANNOT_DEACTIVATE_GROUP_IN_USE", 400, {
    objections,
  });

export const badEventQueueId = (queueId: string) =>
  new JsonableError(`Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID", 400, {
    queue_id: queueId,
  });

/** Zulip's ResourceNotFoundError: HTTP 404 with the default BAD_REQUEST code. */
export const resourceNotFound = (message: string) => new JsonableError(message, "BAD_REQUEST", 404);

/** Zulip's @human_users_only. */
export const botsNotAllowed = () => badRequest("This endpoint does not accept bot requests.");

export const noSuchUser = () => badRequest("No such user");
