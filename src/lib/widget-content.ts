import { badRequest } from "../errors.js";
import { validate, type Validator } from "../params.js";
import type { Widget } from "./widgets.js";

/**
 * POST /messages' `widget_content` (Zulip's check_message and check_widget_content in
 * zerver/lib/validator.py): a JSON object naming a widget, stored as the message's first
 * submessage instead of one its content would start. Zulip knows one such widget, the
 * zform of choices bots offer ("choices", each with the reply a click sends). Every error
 * is Zulip's, prefixed "Widgets: ".
 */

const isDict = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Zulip's check_dict: a dict holding these keys (others are allowed), each validated in
 * order. Errors carry Zulip's messages (params.ts's validators throw JsonableErrors,
 * which are Errors too).
 */
const validateDict =
  (fields: Record<string, Validator<unknown>>): Validator<unknown> =>
  (value, name) => {
    if (!isDict(value)) throw new Error(`${name} is not a dict`);
    for (const [key, validateField] of Object.entries(fields)) {
      if (!(key in value)) throw new Error(`${key} key is missing from ${name}`);
      validateField(value[key], `${name}["${key}"]`);
    }
  };

const validateChoicesForm = validateDict({
  type: validate.str(),
  heading: validate.str(),
  choices: validate.list(
    validateDict({ short_name: validate.str(), long_name: validate.str(), reply: validate.str() }),
  ),
});

/** Python's str() of a parsed JSON value, as Zulip's messages concatenate it. */
const pythonStr = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** Zulip's check_widget_content; throws Error with its message. */
function validateWidgetDict(content: unknown): Widget {
  if (!isDict(content)) throw new Error("widget_content is not a dict");
  if (!("widget_type" in content)) throw new Error("widget_type is not in widget_content");
  if (!("extra_data" in content)) throw new Error("extra_data is not in widget_content");
  const { widget_type: widgetType, extra_data: extraData } = content;
  if (!isDict(extraData)) throw new Error("extra_data is not a dict");
  if (widgetType !== "zform") throw new Error(`unknown widget type: ${pythonStr(widgetType)}`);
  if (!("type" in extraData)) throw new Error("zform is missing type field");
  if (extraData.type !== "choices") throw new Error(`unknown zform type: ${pythonStr(extraData.type)}`);
  validateChoicesForm(extraData, "extra_data");
  return { widget_type: widgetType, extra_data: extraData };
}

/** The widget `widget_content` describes (only its widget_type and extra_data are kept). */
export function parseWidgetContent(raw: string): Widget {
  let content: unknown;
  try {
    content = JSON.parse(raw);
  } catch {
    throw badRequest("Widgets: API programmer sent invalid JSON content");
  }
  try {
    return validateWidgetDict(content);
  } catch (err) {
    throw badRequest(`Widgets: ${(err as Error).message}`);
  }
}
