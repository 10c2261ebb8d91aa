import { anomalousPayload } from "./errors.js";

/**
 * A value read from a webhook payload, checked as it is used (as Zulip's WildValue): a
 * missing key or a value of the wrong type is the integration's "Did X generate this
 * event?" error, never a crash.
 */
export class Wild {
  constructor(
    readonly value: unknown,
    /** The integration's display name, for the error. */
    readonly webhook: string,
  ) {}

  private fail(): never {
    throw anomalousPayload(this.webhook);
  }

  private object(): Record<string, unknown> {
    if (typeof this.value !== "object" || this.value === null || Array.isArray(this.value)) this.fail();
    return this.value as Record<string, unknown>;
  }

  /** Is `key` present (an object's own key)? False for non-objects. */
  has(key: string): boolean {
    return (
      typeof this.value === "object" &&
      this.value !== null &&
      !Array.isArray(this.value) &&
      Object.hasOwn(this.value, key)
    );
  }

  get(key: string): Wild {
    const object = this.object();
    if (!Object.hasOwn(object, key)) this.fail();
    return new Wild(object[key], this.webhook);
  }

  /** The value at `key`, or undefined when absent. */
  opt(key: string): Wild | undefined {
    return this.has(key) ? this.get(key) : undefined;
  }

  /** Python truthiness: null, false, 0, "", [] and {} are false. */
  get truthy(): boolean {
    const v = this.value;
    if (Array.isArray(v)) return v.length > 0;
    if (typeof v === "object" && v !== null) return Object.keys(v).length > 0;
    return Boolean(v);
  }

  str(): string {
    if (typeof this.value !== "string") this.fail();
    return this.value;
  }

  strOrNull(): string | null {
    return this.value === null ? null : this.str();
  }

  int(): number {
    if (typeof this.value !== "number" || !Number.isInteger(this.value)) this.fail();
    return this.value;
  }

  bool(): boolean {
    if (typeof this.value !== "boolean") this.fail();
    return this.value;
  }

  items(): Wild[] {
    if (!Array.isArray(this.value)) this.fail();
    return this.value.map((item) => new Wild(item, this.webhook));
  }

  keys(): string[] {
    return Object.keys(this.object());
  }
}
