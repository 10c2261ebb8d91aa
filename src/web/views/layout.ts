import { signal } from "@preact/signals";

/** On a phone-sized window the sidebars are drawers, opened by the top bar's buttons. */
export const leftOpen = signal(false);
export const rightOpen = signal(false);

export function closeSidebars(): void {
  leftOpen.value = false;
  rightOpen.value = false;
}
