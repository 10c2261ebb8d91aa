import { signal } from "@preact/signals";

const message = signal<string | null>(null);
let timer: ReturnType<typeof setTimeout> | undefined;

/** A short notice at the bottom of the window (an error, "Link copied"), read out by screen readers. */
export function showToast(text: string): void {
  message.value = text;
  clearTimeout(timer);
  timer = setTimeout(() => (message.value = null), 5000);
}

export function Toast() {
  return (
    <div class="toast-region" role="status" aria-live="polite">
      {message.value && <div class="toast">{message.value}</div>}
    </div>
  );
}
