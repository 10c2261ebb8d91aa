import "../styles/pages.css";

/**
 * The login page's one script: the link the person opened (its #narrow/... fragment never
 * reaches the server) is carried through the login, so they land where it pointed.
 */
const next = document.querySelector<HTMLInputElement>('input[name="next"]');
if (next && location.hash.startsWith("#")) next.value = location.hash;
