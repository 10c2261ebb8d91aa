import { badRequest } from "../errors.js";
import { pythonStrip } from "./message-content.js";

/**
 * Widgets (Zulip's zerver/lib/widget.py and the poll/todo validators of
 * zerver/lib/validator.py): a message starting with `/poll` or `/todo` gets a first
 * submessage describing the widget; readers then add votes, options and tasks as more
 * submessages (POST /submessage), which clients fold into the widget's state.
 */

/** "zform" comes only from POST /messages' widget_content (lib/widget-content.ts). */
export type WidgetType = "poll" | "todo" | "zform";

export interface Widget {
  widget_type: WidgetType;
  extra_data: Record<string, unknown>;
}

/** The msg_type of widget submessages. */
export const WIDGET_MSG_TYPE = "widget";

/** Python's str.splitlines(): no empty last line for a trailing break. */
function splitLines(text: string): string[] {
  // eslint-disable-next-line no-control-regex
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** A line of a widget's list, without its `- ` or `* ` bullet. */
const listItem = (line: string) => pythonStrip(line).replace(/^\s*[-*]?\s*/, "");

function pollData(text: string): Record<string, unknown> {
  const lines = splitLines(text);
  const question = lines.length > 0 && lines[0] !== "" ? pythonStrip(lines.shift()!) : "";
  return { question, options: lines.map(listItem).filter((option) => option !== "") };
}

function todoData(text: string): Record<string, unknown> {
  const lines = splitLines(text);
  const title = lines.length > 0 && lines[0] !== "" ? pythonStrip(lines.shift()!) : "";
  const tasks = lines
    .map(listItem)
    .filter((item) => item !== "")
    .map((item) => {
      // A task and its optional description are separated by the first ": ".
      const at = item.indexOf(": ");
      return at < 0
        ? { task: pythonStrip(item), desc: "" }
        : { task: pythonStrip(item.slice(0, at)), desc: pythonStrip(item.slice(at + 2)) };
    });
  return { task_list_title: title, tasks };
}

/** The widget a message's content starts (Zulip's get_widget_data), if any. */
export function widgetOf(content: string): Widget | null {
  const first = content.split(/\s+/)[0]!;
  if (first !== "/poll" && first !== "/todo") return null;
  const rest = content.replace(first, "");
  return first === "/poll"
    ? { widget_type: "poll", extra_data: pollData(rest) }
    : { widget_type: "todo", extra_data: todoData(rest) };
}

/** Python's json.dumps (", " and ": " separators, non-ASCII escaped), as Zulip stores widgets. */
export function pythonJsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The widget type of a message's widget submessage content, if it names one. */
export function widgetTypeOf(widgetContent: string | undefined): string | null {
  if (widgetContent === undefined) return null;
  try {
    const data = JSON.parse(widgetContent) as unknown;
    const type = (data as Record<string, unknown> | null)?.widget_type;
    return typeof type === "string" ? type : null;
  } catch {
    return null;
  }
}

// ---- validating readers' submessages (Zulip's validate_poll_data / validate_todo_data) ----

/** Zulip's MAX_IDX: the largest option or task index clients use. */
const MAX_IDX = 1000;

type FieldValidator = (value: unknown, name: string) => void;

const isString: FieldValidator = (value, name) => {
  if (typeof value !== "string") throw badRequest(`${name} is not a string`);
};
const isInt = (value: unknown, name: string): number => {
  if (typeof value !== "number" || !Number.isInteger(value)) throw badRequest(`${name} is not an integer`);
  return value;
};
const intIn =
  (allowed: number[]): FieldValidator =>
  (value, name) => {
    if (!allowed.includes(isInt(value, name))) throw badRequest(`Invalid ${name}`);
  };
const intRange =
  (low: number, high: number): FieldValidator =>
  (value, name) => {
    const n = isInt(value, name);
    if (n < low) throw badRequest(`${name} is too small`);
    if (n > high) throw badRequest(`${name} is too large`);
  };
const isBool: FieldValidator = (value, name) => {
  if (typeof value !== "boolean") throw badRequest(`${name} is not a boolean`);
};

/** Zulip's check_dict_only: exactly these keys, each checked. */
function validateDictOnly(
  data: Record<string, unknown>,
  name: string,
  fields: Record<string, FieldValidator>,
): void {
  for (const [key, validate] of Object.entries(fields)) {
    if (!(key in data)) throw badRequest(`${key} key is missing from ${name}`);
    validate(data[key], `${name}["${key}"]`);
  }
  const unexpected = Object.keys(data).filter((key) => !(key in fields));
  if (unexpected.length > 0) throw badRequest(`Unexpected arguments: ${unexpected.join(", ")}`);
}

/** The submessage data as a dict with a string `type` (Zulip's first check). */
function typedData(data: unknown, name: string): Record<string, unknown> & { type: string } {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw badRequest(`${name} is not a dict`);
  }
  const dict = data as Record<string, unknown>;
  if (!("type" in dict)) throw badRequest(`type key is missing from ${name}`);
  isString(dict.type, `${name}["type"]`);
  return dict as Record<string, unknown> & { type: string };
}

/** A poll reader's submessage: a vote, a new option, or (the author only) the question. */
export function validatePollData(data: unknown, isWidgetAuthor: boolean): void {
  const name = "poll data";
  const poll = typedData(data, name);
  switch (poll.type) {
    case "vote":
      return validateDictOnly(poll, name, { type: isString, key: isString, vote: intIn([1, -1]) });
    case "question":
      if (!isWidgetAuthor) throw badRequest("You can't edit a question unless you are the author.");
      return validateDictOnly(poll, name, { type: isString, question: isString });
    case "new_option":
      return validateDictOnly(poll, name, { type: isString, option: isString, idx: intRange(0, MAX_IDX) });
    default:
      throw badRequest(`Unknown type for poll data: ${poll.type}`);
  }
}

/** A to-do list reader's submessage: a new task, striking one, or (the author only) the title. */
export function validateTodoData(data: unknown, isWidgetAuthor: boolean): void {
  const name = "todo data";
  const todo = typedData(data, name);
  switch (todo.type) {
    case "new_task":
      return validateDictOnly(todo, name, {
        type: isString,
        key: intRange(0, MAX_IDX),
        task: isString,
        desc: isString,
        completed: isBool,
      });
    case "strike":
      return validateDictOnly(todo, name, { type: isString, key: isString });
    case "new_task_list_title":
      if (!isWidgetAuthor) throw badRequest("You can't edit the task list title unless you are the author.");
      return validateDictOnly(todo, name, { type: isString, title: isString });
    default:
      throw badRequest(`Unknown type for todo data: ${todo.type}`);
  }
}
