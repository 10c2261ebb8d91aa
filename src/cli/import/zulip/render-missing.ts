import { realmUrl, type Config } from "../../../config.js";
import { emojiSourceUrl } from "../../../lib/realm-emoji.js";
import { renderMessage, type RenderContext } from "../../../render/message.js";
import { table, type ExportTables } from "./export-files.js";

/**
 * Rendering for messages an export gives without rendered_content (converters of other
 * platforms leave it to the importer, as Zulip's import_realm renders them): a render
 * context from the export's own users, groups, channels, emoji and linkifiers.
 */
export function renderer(realm: ExportTables, config: Config): (content: string, senderId: number) => string {
  let ctx: RenderContext | null = null;
  const context = (): RenderContext => {
    const file = "realm.json";
    const users = table(realm, file, "zerver_userprofile").map((u) => ({
      id: u.id as number,
      full_name: String(u.full_name),
      is_active: u.is_active !== false,
    }));
    const byId = new Map(users.map((u) => [u.id, u]));
    const groups = table(realm, file, "zerver_namedusergroup").map((g) => ({
      id: (g.usergroup_ptr ?? g.id) as number,
      name: String(g.name),
      deactivated: g.deactivated === true,
    }));
    const channels = table(realm, file, "zerver_stream").map((s) => ({
      id: s.id as number,
      name: String(s.name),
    }));
    const realmId = table(realm, file, "zerver_realm")[0]!.id as number;
    const emoji = table(realm, file, "zerver_realmemoji")
      .filter((e) => e.deactivated !== true)
      .map((e) => ({
        id: e.id as number,
        name: String(e.name),
        source_url: emojiSourceUrl({
          realm_id: realmId,
          file_name: (e.file_name as string | null) ?? null,
          id: e.id as number,
        }),
      }));
    const linkifiers = table(realm, file, "zerver_realmfilter").map((l) => ({
      pattern: String(l.pattern),
      url_template: String(l.url_template),
    }));
    return {
      userByFullName: (name) => users.filter((u) => u.full_name.toLowerCase() === name.toLowerCase()),
      userById: (id) => byId.get(id),
      groupByName: (name) => groups.find((g) => g.name.toLowerCase() === name.toLowerCase()),
      channelByName: (name) => channels.find((c) => c.name === name),
      realmEmoji: (name) => emoji.find((e) => e.name === name),
      emptyTopicDisplayName: "general chat",
      realmUrl: realmUrl(config),
      linkifiers,
    };
  };
  return (content) => renderMessage(content, (ctx ??= context())).html;
}
