import { useState } from "preact/hooks";

/** A settings form's last save: shown beside its button and read out (role status / alert). */
export function useSave(): [
  (action: () => Promise<unknown>, done?: string) => Promise<void>,
  preact.JSX.Element | null,
] {
  const [state, setState] = useState<{ ok: boolean; text: string } | null>(null);
  const run = async (action: () => Promise<unknown>, done = "Saved") => {
    setState(null);
    try {
      await action();
      setState({ ok: true, text: done });
    } catch (err) {
      setState({ ok: false, text: (err as Error).message });
    }
  };
  const shown = state ? (
    <p class={state.ok ? "form-ok" : "form-error"} role={state.ok ? "status" : "alert"}>
      {state.text}
    </p>
  ) : null;
  return [run, shown];
}
