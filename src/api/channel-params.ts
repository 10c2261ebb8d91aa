import { badRequest } from "../errors.js";
import { validate, p, type Validator, type Param } from "../params.js";
import { retentionDaysParam, topicsPolicyParam } from "../lib/channel-validation.js";
import type { ChannelGroupParams } from "../actions/channel-groups.js";
import type { ChannelCreationParams } from "../actions/channels.js";
import type { Principal } from "../lib/access-users.js";
import type { GroupSettingValue } from "../permissions/group-settings.js";
import {
  validateGroupSettingUpdateFormat,
  validateGroupSettingFormat,
  type GroupSettingUpdate,
} from "../permissions/group-setting-values.js";
import {
  CHANNEL_GROUP_SETTING_NAMES,
  type ChannelGroupSettingName,
} from "../permissions/setting-registry.js";

/** Parameters shared by the channel endpoints. */

/** User IDs (preferred) or API emails, all of one kind. */
const validatePrincipals: Validator<Principal[]> = (value, name) => {
  if (!Array.isArray(value)) throw badRequest(`${name} is not a list`);
  if (value.every((v): v is string => typeof v === "string")) return value;
  return validate.list(validate.int())(value, name);
};

export const principalsParam = () => p.json(validatePrincipals).optional();

/** Every channel group setting as an optional plain value (create endpoints). */
export const groupValueParams = () =>
  Object.fromEntries(
    CHANNEL_GROUP_SETTING_NAMES.map((name) => [name, p.json(validateGroupSettingFormat).optional()]),
  ) as Record<ChannelGroupSettingName, Param<GroupSettingValue | undefined>>;

/** Every channel group setting as an optional {new, old} update (PATCH). */
export const groupUpdateParams = () =>
  Object.fromEntries(
    CHANNEL_GROUP_SETTING_NAMES.map((name) => [name, p.json(validateGroupSettingUpdateFormat).optional()]),
  ) as Record<ChannelGroupSettingName, Param<GroupSettingUpdate | undefined>>;

/** The group settings present in parsed parameters. */
export function pickGroupSettings<T>(params: Partial<Record<ChannelGroupSettingName, T | undefined>>) {
  const groups: Partial<Record<ChannelGroupSettingName, T>> = {};
  for (const name of CHANNEL_GROUP_SETTING_NAMES) {
    const value = params[name];
    if (value !== undefined) groups[name] = value;
  }
  return groups;
}

/** Creation parameters of subscribe and create (besides names and subscribers). */
export const creationParams = () => ({
  announce: p.bool().default(false),
  invite_only: p.bool().default(false),
  is_web_public: p.bool().default(false),
  is_default_stream: p.bool().default(false),
  history_public_to_subscribers: p.bool().optional(),
  message_retention_days: retentionDaysParam().optional(),
  topics_policy: topicsPolicyParam().optional(),
  folder_id: p.json(validate.nullable(validate.int())).optional(),
  send_new_subscription_messages: p.bool().default(true),
  ...groupValueParams(),
});

type CreationValues = {
  invite_only: boolean;
  is_web_public: boolean;
  is_default_stream: boolean;
  history_public_to_subscribers?: boolean;
  message_retention_days?: number | null;
  topics_policy?: ChannelCreationParams["topics_policy"];
  folder_id?: number | null;
} & Partial<Record<ChannelGroupSettingName, GroupSettingValue | undefined>>;

export function creationFrom(params: CreationValues): ChannelCreationParams {
  const groups: ChannelGroupParams = pickGroupSettings(params);
  return {
    invite_only: params.invite_only,
    is_web_public: params.is_web_public,
    is_default_stream: params.is_default_stream,
    history_public_to_subscribers: params.history_public_to_subscribers,
    message_retention_days: params.message_retention_days,
    topics_policy: params.topics_policy,
    folder_id: params.folder_id,
    groups,
  };
}

/** include_subscribers: "true", "false" or "partial" (raw or JSON). */
export const includeSubscribersParam = () =>
  p.custom((raw, name): boolean | "partial" => {
    const value = raw.trim();
    if (value === "partial" || value === '"partial"') return "partial";
    if (value === "true") return true;
    if (value === "false") return false;
    throw badRequest(`Invalid ${name}`);
  });
