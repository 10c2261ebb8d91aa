import { signal } from "@preact/signals";
import { lazy, Suspense } from "preact/compat";
import { useEffect, useMemo } from "preact/hooks";
import type { Term } from "../model/hash.js";
import { client, queue } from "../app.js";
import { api } from "../api/http.js";
import { canonicalNarrow } from "../model/narrow.js";
import { currentView } from "../router.js";
import { ChannelBrowser } from "./ChannelBrowser.js";
import { Compose } from "./Compose.js";
import { Feed, narrowTitle } from "./Feed.js";
import { Inbox, Recent } from "./Inbox.js";
import { LeftSidebar } from "./LeftSidebar.js";
import { leftOpen, rightOpen, closeSidebars } from "./layout.js";
import { ProfileCard } from "./ProfileCard.js";
import { StatusDialog } from "./StatusDialog.js";
import { Toast } from "./Toast.js";
import { TopBar } from "./TopBar.js";
import { UserList } from "./UserList.js";
import { useKeyboardShortcuts } from "./keyboard.js";
import { notifyOf, useDocumentTitle } from "./notifications.js";
import { noteEventsArrived } from "../perf.js";
import { usePresenceReporting, useTheme } from "./presence.js";

const Settings = lazy(() => import("./settings/Settings.js").then((m) => m.Settings));

const phase = signal<"loading" | "ready" | "failed">("loading");
const failure = signal("");

function boot(): void {
  client.topics.fetcher = (streamId) =>
    api<{ topics: Array<{ name: string; max_id: number }> }>("GET", `/users/me/${streamId}/topics`).then(
      (a) => a.topics.map((t) => ({ name: t.name, maxId: t.max_id })),
    );
  queue.onEvents = (events) => {
    noteEventsArrived(events);
    notifyOf(events);
  };
  queue.start().then(
    () => (phase.value = "ready"),
    (err: unknown) => {
      failure.value = (err as Error).message;
      phase.value = "failed";
    },
  );
  window.addEventListener("online", () => queue.retryNow());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") queue.retryNow();
  });
  // A page restored from the back-forward cache, or a machine back from sleep: poll anew.
  window.addEventListener("pageshow", (e) => e.persisted && queue.repoll());
  setInterval(() => client.typing.expire(Date.now()), 1000);
}

export function App() {
  useEffect(boot, []);
  if (phase.value === "failed") {
    return (
      <main class="boot-error" role="alert">
        <h1>chatd could not load</h1>
        <p>{failure.value}</p>
        <button type="button" class="primary" onClick={() => location.reload()}>
          Try again
        </button>
      </main>
    );
  }
  if (phase.value === "loading")
    return (
      <div class="boot" role="status">
        Loading…
      </div>
    );
  return <Main />;
}

function Main() {
  useKeyboardShortcuts();
  useDocumentTitle();
  usePresenceReporting();
  useTheme();
  return (
    <div class={`layout${leftOpen.value ? " left-open" : ""}${rightOpen.value ? " right-open" : ""}`}>
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
        Skip to messages
      </a>
      <TopBar />
      <LeftSidebar />
      <main class="center" id="main" tabIndex={-1}>
        <Center />
      </main>
      <UserList />
      {(leftOpen.value || rightOpen.value) && (
        <div class="scrim" onClick={closeSidebars} aria-hidden="true" />
      )}
      <ProfileCard />
      <StatusDialog />
      <Toast />
    </div>
  );
}

function Center() {
  const view = currentView.value;
  switch (view.kind) {
    case "inbox":
      return (
        <div class="conversation">
          <Inbox />
          <Compose narrow={null} />
        </div>
      );
    case "recent":
      return (
        <div class="conversation">
          <Recent />
          <Compose narrow={null} />
        </div>
      );
    case "channels":
      return <ChannelBrowser />;
    case "settings":
    case "organization":
      return (
        <Suspense fallback={<div role="status">Loading settings…</div>}>
          <Settings view={view} />
        </Suspense>
      );
    case "narrow":
      return <NarrowView terms={view.terms} />;
  }
}

function NarrowView({ terms }: { terms: Term[] }) {
  const channels = client.world.channels.value;
  const key = JSON.stringify(terms);
  const narrow = useMemo(() => canonicalNarrow(terms, client.world), [key, channels]);
  const narrowKey = JSON.stringify(narrow);
  return (
    <div class="conversation">
      <Feed key={narrowKey} narrow={narrow} title={narrowTitle(narrow)} />
      <Compose narrow={narrow} />
    </div>
  );
}
