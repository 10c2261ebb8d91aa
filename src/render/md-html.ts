import type { MarkdownIt, RendererRule, Token } from "markdown-it";
import { renderEnv, type RenderEnv } from "./context.js";
import type { EmojiMarkup } from "./emoji-markup.js";
import type { ChannelLinkMeta, MentionMeta } from "./md-mentions.js";

/**
 * The HTML Zulip's server writes for each construct. Attributes come in alphabetical
 * order (as Python-Markdown serializes them); text escapes only `& < >`, attribute values
 * also `"`, and code blocks also `'` (as Pygments does).
 */

export const escapeText = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
export const escapeAttr = (text: string): string => escapeText(text).replace(/"/g, "&quot;");
const escapeCode = (text: string): string => escapeAttr(text).replace(/'/g, "&#39;");

/**
 * Pygments' names for the languages people name most, so `data-code-language` is the
 * canonical name as in Zulip (`py` -> `Python`). Other languages keep the name as written.
 */
const LANGUAGE_NAMES: Record<string, string> = {};
for (const [name, aliases] of Object.entries({
  Bash: "bash sh ksh zsh shell",
  "Bash Session": "console shell-session",
  Batchfile: "batch bat dosbatch winbatch",
  C: "c",
  "C#": "csharp c#",
  "C++": "cpp c++",
  Clojure: "clojure clj",
  CoffeeScript: "coffeescript coffee-script coffee",
  CSS: "css",
  Dart: "dart",
  Diff: "diff udiff",
  Docker: "docker dockerfile",
  Elixir: "elixir ex exs",
  Erlang: "erlang",
  Go: "go golang",
  GraphQL: "graphql",
  Groovy: "groovy",
  Haskell: "haskell hs",
  HTML: "html",
  INI: "ini cfg dosini",
  Java: "java",
  JavaScript: "javascript js",
  JSON: "json json-object",
  JSX: "jsx react",
  Julia: "julia jl",
  Kotlin: "kotlin",
  Lua: "lua",
  Makefile: "make makefile mf bsdmake",
  Markdown: "markdown md",
  Nginx: "nginx",
  "Objective-C": "objective-c objectivec obj-c objc",
  OCaml: "ocaml",
  Perl: "perl pl",
  PHP: "php php3 php4 php5",
  PowerShell: "powershell pwsh posh ps1 psm1",
  Python: "python py sage python3 py3 bazel starlark",
  "Python 2.x": "python2 py2",
  "Python console session": "pycon python-console",
  R: "r",
  Ruby: "ruby rb duby",
  Rust: "rust rs",
  Scala: "scala",
  SCSS: "scss",
  SQL: "sql",
  Swift: "swift",
  TeX: "tex latex",
  "Text only": "text",
  TOML: "toml",
  TypeScript: "typescript ts",
  VimL: "vim",
  XML: "xml",
  YAML: "yaml yml",
})) {
  for (const alias of aliases.split(" ")) LANGUAGE_NAMES[alias] = name;
}

export function codeLanguageName(lang: string): string {
  return LANGUAGE_NAMES[lang] ?? lang;
}

/** A code block as Zulip's codehilite writes it (without Pygments' token spans). */
export function codeBlockHtml(content: string, lang: string): string {
  const code = content.replace(/^\n+/, "").replace(/\n+$/, "");
  const language = lang ? ` data-code-language="${escapeAttr(codeLanguageName(lang))}"` : "";
  return `<div class="codehilite"${language}><pre><span></span><code>${escapeCode(code)}\n</code></pre></div>\n`;
}

function mentionHtml(mention: MentionMeta): string {
  const silent = mention.silent ? " silent" : "";
  const at = mention.silent ? "" : "@";
  switch (mention.kind) {
    case "user":
      return `<span class="user-mention${silent}" data-user-id="${mention.userId}">${at}${escapeText(mention.name)}</span>`;
    case "channel-wildcard":
      return `<span class="user-mention channel-wildcard-mention${silent}" data-user-id="*">${at}${escapeText(mention.word)}</span>`;
    case "topic-wildcard":
      return `<span class="topic-mention${silent}">${at}${escapeText(mention.word)}</span>`;
    case "group":
      return `<span class="user-group-mention${silent}" data-user-group-id="${mention.groupId}">${at}${escapeText(mention.name)}</span>`;
  }
}

function channelLinkHtml(link: ChannelLinkMeta, env: RenderEnv): string {
  const href = escapeAttr(link.href);
  const channel = `#${escapeText(link.channelName)}`;
  if (link.kind === "channel")
    return `<a class="stream" data-stream-id="${link.channelId}" href="${href}">${channel}</a>`;
  const topic =
    link.topic === "" ? `<em>${escapeText(env.ctx.emptyTopicDisplayName)}</em>` : escapeText(link.topic);
  if (link.kind === "topic") {
    return `<a class="stream-topic" data-stream-id="${link.channelId}" href="${href}">${channel} &gt; ${topic}</a>`;
  }
  return `<a class="message-link" href="${href}">${channel} &gt; ${topic} @ 💬</a>`;
}

export function emojiHtml(emoji: EmojiMarkup): string {
  const title = escapeAttr(emoji.name.replace(/_/g, " "));
  const syntax = `:${emoji.name}:`;
  if (emoji.kind === "image") {
    return `<img alt="${escapeAttr(syntax)}" class="emoji" src="${escapeAttr(emoji.src)}" title="${title}">`;
  }
  return `<span aria-label="${title}" class="emoji emoji-${emoji.code}" role="img" title="${title}">${escapeText(syntax)}</span>`;
}

function timeHtml(token: Token): string {
  const { datetime } = token.meta as { datetime: string | null };
  if (datetime === null)
    return `<span class="timestamp-error">Invalid time format: ${escapeText(token.content)}</span>`;
  return `<time datetime="${datetime}">${escapeText(token.content)}</time>`;
}

export function installRenderer(md: MarkdownIt): void {
  const rules = md.renderer.rules;
  rules.text = (tokens, idx) => escapeText(tokens[idx]!.content);
  rules.code_inline = (tokens, idx) => `<code>${escapeText(tokens[idx]!.content)}</code>`;
  rules.code_block = (tokens, idx) => codeBlockHtml(tokens[idx]!.content, "");
  rules.zulip_code = (tokens, idx) => codeBlockHtml(tokens[idx]!.content, tokens[idx]!.info);
  rules.zulip_mention = (tokens, idx) => mentionHtml(tokens[idx]!.meta as MentionMeta);
  rules.zulip_channel_link = (tokens, idx, _options, env) =>
    channelLinkHtml(tokens[idx]!.meta as ChannelLinkMeta, renderEnv({ env }));
  rules.zulip_emoji = (tokens, idx) => emojiHtml(tokens[idx]!.meta as EmojiMarkup);
  rules.zulip_time = (tokens, idx) => timeHtml(tokens[idx]!);
  // In a tight list, a nested list follows the item's text directly ("<li>a<ul>").
  const afterHiddenParagraph: RendererRule = (tokens, idx, options, _env, self) => {
    const html = self.renderToken(tokens, idx, options);
    return idx > 0 && tokens[idx - 1]!.hidden ? html.replace(/^\n/, "") : html;
  };
  rules.bullet_list_open = afterHiddenParagraph;
  rules.ordered_list_open = afterHiddenParagraph;
  rules.zulip_spoiler_open = () => '<div class="spoiler-block"><div class="spoiler-header">\n';
  rules.zulip_spoiler_content = () => '</div><div class="spoiler-content" aria-hidden="true">\n';
  rules.zulip_spoiler_close = () => "</div></div>\n";
}
