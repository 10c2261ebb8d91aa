import type { IncomingWebhookIntegration, WebhookInput, WebhookMessage } from "./types.js";
import type { Wild } from "./wild.js";

/**
 * Prometheus Alertmanager (Zulip's zerver/webhooks/alertmanager): alerts grouped by the
 * label or annotation the `name` URL option names (the topic; default `instance`), each
 * described by the one `desc` names (default `alertname`), firing and resolved apart; each
 * links to its `generatorURL`, when the alert has one.
 */

/** A label, else an annotation, else the fallback. */
function field(alert: Wild, key: string, fallback: string): string {
  for (const source of ["labels", "annotations"]) {
    const value = alert.opt(source)?.opt(key);
    if (value) return value.str();
  }
  return fallback;
}

function messages(input: WebhookInput): WebhookMessage[] {
  const nameField = input.param("name") ?? "instance";
  const descField = input.param("desc") ?? "alertname";
  const topics = new Map<string, { firing: string[]; resolved: string[] }>();
  for (const alert of input.payload.get("alerts").items()) {
    const name = field(alert, nameField, "(unknown)");
    const desc = field(alert, descField, `<missing field: ${descField}>`);
    const generator = alert.opt("generatorURL");
    const body = generator ? `${desc} ([source](${generator.str().replaceAll("tab=1", "tab=0")}))` : desc;
    const status = alert.get("status").str();
    if (status !== "firing" && status !== "resolved") continue;
    const lists = topics.get(name) ?? { firing: [], resolved: [] };
    topics.set(name, lists);
    lists[status].push(body);
  }
  const out: WebhookMessage[] = [];
  for (const [topic, lists] of topics) {
    for (const status of ["firing", "resolved"] as const) {
      const items = lists[status];
      if (items.length === 0) continue;
      const head = status === "firing" ? ":alert: **FIRING**" : ":squared_ok: **Resolved**";
      const content =
        items.length === 1 ? `${head} ${items[0]}` : `${head}\n${items.map((m) => `* ${m}`).join("\n")}`;
      out.push({ topic, content });
    }
  }
  return out;
}

export const alertmanager: IncomingWebhookIntegration = {
  name: "alertmanager",
  displayName: "Alertmanager",
  webhookName: "Alertmanager",
  allEventTypes: null,
  urlOptions: [
    { key: "name", label: "Label or annotation naming the topic of each alert", inputType: "string" },
    { key: "desc", label: "Label or annotation describing each alert", inputType: "string" },
  ],
  configOptions: [],
  messages,
};
