import { createRef } from "preact";

/** Elements keyboard shortcuts move the focus to. */
export const searchInput = createRef<HTMLInputElement>();
export const composeTextarea = createRef<HTMLTextAreaElement>();
