import { useEffect } from "preact/hooks";
import { client } from "../app.js";
import { reportPresence } from "../actions.js";

/** Zulip's web app reports every minute; active means used within the last few minutes. */
const REPORT_MS = 60_000;
const IDLE_AFTER_MS = 5 * 60_000;

export function usePresenceReporting(): void {
  useEffect(() => {
    let lastInput = Date.now();
    let newInput = true;
    const onInput = () => {
      lastInput = Date.now();
      newInput = true;
    };
    const report = () => {
      const active = document.visibilityState === "visible" && Date.now() - lastInput < IDLE_AFTER_MS;
      void reportPresence(client, active, newInput).catch(() => undefined);
      newInput = false;
    };
    for (const type of ["mousemove", "keydown", "pointerdown", "focus"])
      window.addEventListener(type, onInput, { passive: true });
    report();
    const timer = setInterval(report, REPORT_MS);
    return () => {
      clearInterval(timer);
      for (const type of ["mousemove", "keydown", "pointerdown", "focus"])
        window.removeEventListener(type, onInput);
    };
  }, []);
}

/** The person's colour scheme: Zulip's 1 follows the system (the stylesheet decides), 2 dark, 3 light. */
export function useTheme(): void {
  const scheme = client.world.settings.value.color_scheme;
  useEffect(() => {
    const root = document.documentElement;
    if (scheme === 2) root.dataset.theme = "dark";
    else if (scheme === 3) root.dataset.theme = "light";
    else delete root.dataset.theme;
  }, [scheme]);
}
