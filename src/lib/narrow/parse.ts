import { JsonableError, badRequest } from "../../errors.js";
import { p, type Param } from "../../params.js";

/**
 * A narrow term as the client sent it, after shape checks: Zulip's NarrowParameter.
 * Both wire forms are accepted: `{operator, operand, negated}` and the legacy
 * `[operator, operand]` pair. Operators are checked later, by resolveNarrow.
 */
export interface NarrowTerm {
  operator: string;
  operand: string | number | Array<string | number>;
  negated: boolean;
}

/** Zulip's BadNarrowOperatorError: 400 BAD_NARROW with `desc`. */
export const badNarrow = (desc: string) =>
  new JsonableError(`Invalid narrow operator: ${desc}`, "BAD_NARROW", 400, { desc });

/** Operators whose operand may be an integer (an ID) or a string. */
const INT_OR_STRING = new Set(["channel", "stream", "id", "sender", "group-pm-with", "dm-including", "with"]);
/** Operators whose operand may be a list of user IDs or a string of emails. */
const STRING_OR_INT_LIST = new Set(["dm", "pm-with"]);

function validateOperand(operator: string, operand: unknown, name: string): NarrowTerm["operand"] {
  if (INT_OR_STRING.has(operator)) {
    if (typeof operand === "string") return operand;
    if (typeof operand === "number" && Number.isSafeInteger(operand)) return operand;
    throw badRequest(`${name} is not an integer or a string`);
  }
  if (STRING_OR_INT_LIST.has(operator)) {
    if (typeof operand === "string") return operand;
    if (Array.isArray(operand) && operand.every((x) => typeof x === "number" && Number.isSafeInteger(x))) {
      return operand as number[];
    }
    throw badRequest(`${name} is not a string or an integer list`);
  }
  if (typeof operand !== "string") throw badRequest(`${name} is not a string`);
  if (operator === "search" && operand.length === 0) throw badRequest(`${name} cannot be blank.`);
  return operand;
}

/** Normalizes operator aliases with underscores (pm_with, group_pm_with). */
const canonicalOperator = (op: string) => op.replace(/_/g, "-");

/** Checks the shape of a decoded `narrow` value (a JSON list of terms). */
export function parseNarrow(value: unknown, name = "narrow"): NarrowTerm[] {
  if (!Array.isArray(value)) throw badRequest(`${name} is not a list`);
  return value.map((element: unknown, i): NarrowTerm => {
    const where = `${name}[${i}]`;
    if (Array.isArray(element)) {
      if (element.length !== 2 || !element.every((x) => typeof x === "string")) {
        throw badRequest("element is not a string pair");
      }
      const [operator, operand] = element as [string, string];
      const op = canonicalOperator(operator);
      return { operator: op, operand: validateOperand(op, operand, `${where}[1]`), negated: false };
    }
    if (typeof element !== "object" || element === null) throw badRequest(`${where} is not a dict`);
    const dict = element as Record<string, unknown>;
    if (dict.operator === undefined || dict.operator === null) throw badRequest("operator is missing");
    if (dict.operand === undefined || dict.operand === null) throw badRequest("operand is missing");
    if (typeof dict.operator !== "string") throw badRequest(`${where}["operator"] is not a string`);
    if (dict.negated !== undefined && typeof dict.negated !== "boolean") {
      throw badRequest(`${where}["negated"] is not a boolean`);
    }
    const op = canonicalOperator(dict.operator);
    return {
      operator: op,
      operand: validateOperand(op, dict.operand, `${where}["operand"]`),
      negated: dict.negated === true,
    };
  });
}

/** The `narrow` request parameter: JSON, checked by parseNarrow. */
export const narrowParam = (): Param<NarrowTerm[]> => p.json((value, name) => parseNarrow(value, name));
