import { expect } from "chai";

export type ParamValue = string | number | boolean | null | undefined | object;
export type Params = Record<string, ParamValue>;

export interface ApiResponse {
  status: number;
  headers: Headers;
  // Tests inspect arbitrary JSON.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  /** How the body is sent: form-urlencoded (python client), multipart (zulip-js) or JSON. */
  encoding?: "form" | "multipart" | "json";
  /** Put parameters in the query string even for non-GET methods (zulip-js). */
  inQuery?: boolean;
  headers?: Record<string, string>;
}

/** Encodes a value as Zulip clients do: strings raw, everything else as JSON text. */
export function wireValue(value: ParamValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function entries(params: Params): Array<[string, string]> {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, wireValue(v)]);
}

/** A client of the API, authenticated as one user (or anonymous), over real HTTP. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly credentials: { email: string; apiKey: string } | null,
  ) {}

  async request(
    method: string,
    path: string,
    params: Params = {},
    options: RequestOptions = {},
  ): Promise<ApiResponse> {
    const url = new URL(`/api/v1${path}`, this.baseUrl);
    const headers: Record<string, string> = { ...options.headers };
    if (this.credentials) {
      const token = Buffer.from(`${this.credentials.email}:${this.credentials.apiKey}`).toString("base64");
      headers.authorization ??= `Basic ${token}`;
    }
    let body: string | FormData | undefined;
    if (method === "GET" || options.inQuery) {
      for (const [k, v] of entries(params)) url.searchParams.append(k, v);
    } else if (options.encoding === "json") {
      headers["content-type"] = "application/json";
      body = JSON.stringify(params);
    } else if (options.encoding === "multipart") {
      const form = new FormData();
      for (const [k, v] of entries(params)) form.append(k, v);
      body = form;
    } else {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(entries(params)).toString();
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { nonJson: text };
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  get(path: string, params?: Params, options?: RequestOptions) {
    return this.request("GET", path, params, options);
  }
  post(path: string, params?: Params, options?: RequestOptions) {
    return this.request("POST", path, params, options);
  }
  patch(path: string, params?: Params, options?: RequestOptions) {
    return this.request("PATCH", path, params, options);
  }
  delete(path: string, params?: Params, options?: RequestOptions) {
    return this.request("DELETE", path, params, options);
  }
}

export const anonymousClient = (baseUrl: string) => new Client(baseUrl, null);

/** Asserts a success envelope and returns the body. */
export function expectSuccess(res: ApiResponse): ApiResponse["body"] {
  expect(res.body, JSON.stringify(res.body)).to.include({ result: "success", msg: "" });
  expect(res.status).to.equal(200);
  return res.body;
}

/** Asserts Zulip's error envelope with the exact message, code and HTTP status. */
export function expectError(res: ApiResponse, status: number, msg: string, code = "BAD_REQUEST"): void {
  expect(res.body, JSON.stringify(res.body)).to.include({ result: "error", msg, code });
  expect(res.status).to.equal(status);
}
