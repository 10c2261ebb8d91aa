import { useEffect, useRef, useState } from "preact/hooks";
import { client, queue } from "../app.js";
import { logOut } from "../actions.js";
import { navigate, currentView } from "../router.js";
import { narrowHash } from "../model/hash.js";
import { Icon } from "./Icon.js";
import { Avatar } from "./Avatar.js";
import { leftOpen, rightOpen } from "./layout.js";
import { openStatusDialog } from "./StatusDialog.js";
import { searchInput } from "./focus.js";
import { ownFilePath } from "./links.js";

/** The search text for a narrow, as Zulip's search box shows it ("channel:general topic:lunch"). */
function searchText(): string {
  const view = currentView.value;
  if (view.kind !== "narrow") return "";
  return view.terms
    .filter((t) => t.operator === "search")
    .map((t) => t.operand)
    .join(" ");
}

/** Zulip's search syntax: `operator:operand` terms (quoted operands allowed), the rest is text. */
export function parseSearch(text: string): Array<{ operator: string; operand: string; negated?: boolean }> {
  const terms: Array<{ operator: string; operand: string; negated?: boolean }> = [];
  const words: string[] = [];
  const pattern = /(-?)([a-z-]+):("[^"]*"|\S+)|(\S+)/gi;
  for (const match of text.matchAll(pattern)) {
    if (match[2]) {
      const operand = match[3]!.replace(/^"|"$/g, "");
      terms.push(
        match[1]
          ? { operator: match[2].toLowerCase(), operand, negated: true }
          : { operator: match[2].toLowerCase(), operand },
      );
    } else words.push(match[4]!);
  }
  if (words.length > 0) terms.push({ operator: "search", operand: words.join(" ") });
  return terms;
}

export function TopBar() {
  const realm = client.world.realm.value;
  const me = client.world.me.value;
  const connection = queue.connection.value;
  const [query, setQuery] = useState(searchText());
  const [menuOpen, setMenuOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);
  useEffect(() => setQuery(searchText()), [currentView.value]);
  useEffect(() => {
    if (!menuOpen) return;
    const close = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenuOpen(false);
    };
    document.addEventListener("click", close);
    return () => document.removeEventListener("click", close);
  }, [menuOpen]);

  const submit = (e: Event) => {
    e.preventDefault();
    const text = query.trim();
    if (text === "") return;
    const terms = parseSearch(text).map((t) => ({
      ...t,
      operator: t.operator === "stream" ? "channel" : t.operator,
    }));
    navigate(narrowHash(terms));
  };

  return (
    <header class="topbar">
      <button
        type="button"
        class="icon-button only-phone"
        aria-label="Show channels"
        aria-expanded={leftOpen.value}
        aria-controls="left-sidebar"
        onClick={() => (leftOpen.value = !leftOpen.value)}
      >
        <Icon name="menu" />
      </button>
      <a href="#inbox" class="realm-name">
        <img src={ownFilePath(realm.iconUrl)} alt="" width={24} height={24} />
        <span>{realm.name}</span>
      </a>
      <form role="search" class="search" onSubmit={submit}>
        <Icon name="search" size={16} />
        <input
          ref={searchInput}
          type="search"
          aria-label="Search"
          placeholder="Search (e.g. channel:general topic:lunch)"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") e.currentTarget.blur();
          }}
        />
      </form>
      {connection !== "live" && (
        <span class="connection" role="status">
          {connection === "connecting" ? "Connecting…" : "Reconnecting…"}
        </span>
      )}
      <button
        type="button"
        class="icon-button only-phone"
        aria-label="Show users"
        aria-expanded={rightOpen.value}
        aria-controls="right-sidebar"
        onClick={() => (rightOpen.value = !rightOpen.value)}
      >
        <Icon name="users" />
      </button>
      <a href="#settings/profile" class="icon-button" aria-label="Settings" title="Settings">
        <Icon name="gear" />
      </a>
      <div class="menu-anchor" ref={menuRef}>
        <button
          type="button"
          class="avatar-button"
          aria-label="Personal menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <Avatar userId={client.myUserId} size={28} />
        </button>
        {menuOpen && (
          <div class="menu" aria-label="Personal menu" role="group">
            <div class="menu-header">
              <strong>{me?.full_name}</strong>
              <span>{me?.email}</span>
            </div>
            <button
              type="button"
              onClick={() => {
                setMenuOpen(false);
                openStatusDialog();
              }}
            >
              <Icon name="smile" /> Set status
            </button>
            <button
              type="button"
              onClick={() => {
                setMenuOpen(false);
                navigate("#settings/profile");
              }}
            >
              <Icon name="gear" /> Personal settings
            </button>
            <button type="button" onClick={() => void logOut(() => queue.stop())}>
              <Icon name="logout" /> Log out
            </button>
          </div>
        )}
      </div>
    </header>
  );
}
