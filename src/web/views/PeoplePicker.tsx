import { useState } from "preact/hooks";
import { client } from "../app.js";
import { Icon } from "./Icon.js";

/** Choose people: those chosen as removable chips, an input that suggests more by name or email. */
export function PeoplePicker({
  label,
  userIds,
  onChange,
}: {
  label: string;
  userIds: number[];
  onChange: (ids: number[]) => void;
}) {
  const [query, setQuery] = useState("");
  const [selected, setSelected] = useState(0);
  const q = query.trim().toLowerCase();
  const options =
    q === ""
      ? []
      : [...client.world.users.value.values()]
          .filter(
            (u) =>
              u.is_active &&
              !userIds.includes(u.user_id) &&
              (u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().startsWith(q)),
          )
          .sort((a, b) => Number(a.is_bot) - Number(b.is_bot) || a.full_name.localeCompare(b.full_name))
          .slice(0, 8);
  const add = (id: number) => {
    onChange([...userIds, id]);
    setQuery("");
    setSelected(0);
  };
  return (
    <div class="people-picker">
      {userIds.map((id) => (
        <span class="chip" key={id}>
          {client.world.fullName(id) ?? "Unknown user"}
          <button
            type="button"
            aria-label={`Remove ${client.world.fullName(id) ?? "person"}`}
            onClick={() => onChange(userIds.filter((u) => u !== id))}
          >
            <Icon name="close" size={12} />
          </button>
        </span>
      ))}
      <input
        aria-label={label}
        placeholder={userIds.length === 0 ? "Name or email" : "Add another person"}
        value={query}
        role="combobox"
        aria-expanded={options.length > 0}
        aria-controls="people-options"
        aria-autocomplete="list"
        onInput={(e) => {
          setQuery(e.currentTarget.value);
          setSelected(0);
        }}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && options.length) {
            e.preventDefault();
            setSelected((selected + 1) % options.length);
          } else if (e.key === "ArrowUp" && options.length) {
            e.preventDefault();
            setSelected((selected + options.length - 1) % options.length);
          } else if ((e.key === "Enter" || e.key === "Tab" || e.key === ",") && options[selected]) {
            e.preventDefault();
            add(options[selected].user_id);
          } else if (e.key === "Backspace" && query === "" && userIds.length > 0) {
            onChange(userIds.slice(0, -1));
          }
        }}
      />
      {options.length > 0 && (
        <ul class="suggestions" id="people-options" role="listbox" aria-label={`${label} suggestions`}>
          {options.map((u, i) => (
            <li
              key={u.user_id}
              role="option"
              aria-selected={i === selected}
              onMouseDown={(e) => {
                e.preventDefault();
                add(u.user_id);
              }}
            >
              <span class="suggestion-label">{u.full_name}</span>
              <span class="suggestion-detail">{u.email}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
