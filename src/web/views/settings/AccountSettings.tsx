import { useEffect, useRef, useState } from "preact/hooks";
import { client } from "../../app.js";
import { api, upload } from "../../api/http.js";
import { serverEmailOn } from "../../api/server-email.js";
import { updateSettings } from "../../actions.js";
import { Avatar } from "../Avatar.js";
import { useSave } from "./SaveState.js";

export function ProfileSettings() {
  const me = client.world.me.value!;
  const [name, setName] = useState(me.full_name);
  const [save, saved] = useSave();
  const [avatarSave, avatarSaved] = useSave();
  return (
    <div class="settings-sections">
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save(() => updateSettings({ full_name: name.trim() }));
        }}
      >
        <label for="settings-full-name">Name</label>
        <input
          id="settings-full-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <div class="form-buttons">
          <button type="submit" class="primary">
            Save name
          </button>
        </div>
        {saved}
      </form>
      <div class="form avatar-form">
        <Avatar userId={client.myUserId} size={96} />
        <label class="button-like">
          Upload new avatar
          <input
            type="file"
            accept="image/*"
            class="visually-hidden"
            aria-label="Upload avatar"
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              if (!file) return;
              const form = new FormData();
              form.append("file", file, file.name);
              void avatarSave(() => upload("/users/me/avatar", form, () => undefined), "Avatar updated");
            }}
          />
        </label>
        <button
          type="button"
          onClick={() => void avatarSave(() => api("DELETE", "/users/me/avatar"), "Avatar removed")}
        >
          Remove avatar
        </button>
        {avatarSaved}
      </div>
    </div>
  );
}

/** Zulip's settings_data.user_can_change_email: administrators always; others unless the realm forbids it. */
const canChangeEmail = () => client.world.isAdmin.value || !client.world.realm.value.emailChangesDisabled;

/**
 * The user's email, and Zulip's way to change it: the new address gets a confirmation
 * link, and the change is made (and reaches this page as a realm_user event) when it is
 * followed.
 */
function EmailSetting() {
  const me = client.world.me.value!;
  const current = me.delivery_email ?? me.email;
  const [open, setOpen] = useState(false);
  const [address, setAddress] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  // The address a link was sent to; the notice goes once the change arrives (as Zulip's update_email).
  const [sentTo, setSentTo] = useState("");
  const toggle = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLInputElement>(null);
  // Preact does not focus autoFocus fields inserted after the page loaded.
  useEffect(() => {
    if (open) field.current?.focus();
  }, [open]);
  const close = () => {
    setOpen(false);
    setError("");
    toggle.current?.focus();
  };
  const submit = () => {
    const wanted = address.trim();
    if (wanted.toLowerCase() === current.toLowerCase()) {
      setError("That is already your email address.");
      return;
    }
    setError("");
    setBusy(true);
    updateSettings({ email: wanted })
      .then(() => {
        setSentTo(wanted);
        close();
      })
      .catch((err: Error) => setError(err.message))
      .finally(() => setBusy(false));
  };
  const allowed = canChangeEmail();
  return (
    <div class="form">
      <h3>Email</h3>
      <p class="email-current">
        <strong>{current}</strong>
      </p>
      {allowed ? (
        <div>
          <button
            type="button"
            ref={toggle}
            aria-expanded={open ? "true" : "false"}
            aria-controls={open ? "settings-email-form" : undefined}
            onClick={() => {
              if (open) return close();
              setAddress("");
              setOpen(true);
            }}
          >
            Change email
          </button>
        </div>
      ) : (
        <p class="form-hint">Email address changes are disabled in this organization.</p>
      )}
      {allowed && open && (
        <form
          id="settings-email-form"
          class="form"
          aria-label="Change email"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label for="settings-new-email">New email</label>
          <input
            id="settings-new-email"
            ref={field}
            type="email"
            autocomplete="email"
            required
            aria-invalid={error ? "true" : undefined}
            aria-describedby={error ? "settings-email-error" : undefined}
            value={address}
            onInput={(e) => setAddress(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") close();
            }}
          />
          {error && (
            <p id="settings-email-error" class="form-error" role="alert">
              {error}
            </p>
          )}
          <div class="form-buttons">
            <button type="submit" class="primary" disabled={busy}>
              Send confirmation
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {!open && sentTo && sentTo.toLowerCase() !== current.toLowerCase() && (
        <p class={serverEmailOn() ? "form-ok" : "settings-notice"} role="status">
          {serverEmailOn() ? (
            <>
              Check your email (<strong>{sentTo}</strong>) to confirm the new address.
            </>
          ) : (
            // Nothing is mailed: the confirmation is an .eml file only the operator can read.
            <>
              Email is off on this server, so the confirmation for <strong>{sentTo}</strong> was not mailed.
              Ask whoever runs the server for its link: it is in the outbox/ folder of the server&apos;s data
              directory.
            </>
          )}
        </p>
      )}
    </div>
  );
}

/** Account and password: the email (with its change) and the password form. */
export function AccountSettings() {
  return (
    <div class="settings-sections">
      <EmailSetting />
      <PasswordSettings />
    </div>
  );
}

function PasswordSettings() {
  const [oldPassword, setOld] = useState("");
  const [newPassword, setNew] = useState("");
  const [save, saved] = useSave();
  return (
    <form
      class="form"
      aria-labelledby="settings-password-label"
      onSubmit={(e) => {
        e.preventDefault();
        void save(async () => {
          await updateSettings({ old_password: oldPassword, new_password: newPassword });
          setOld("");
          setNew("");
        }, "Password changed. Your other sessions were logged out.");
      }}
    >
      <h3 id="settings-password-label">Password</h3>
      <label for="settings-old-password">Current password</label>
      <input
        id="settings-old-password"
        type="password"
        autocomplete="current-password"
        required
        value={oldPassword}
        onInput={(e) => setOld(e.currentTarget.value)}
      />
      <label for="settings-new-password">New password</label>
      <input
        id="settings-new-password"
        type="password"
        autocomplete="new-password"
        required
        value={newPassword}
        onInput={(e) => setNew(e.currentTarget.value)}
      />
      <div class="form-buttons">
        <button type="submit" class="primary">
          Change password
        </button>
      </div>
      {saved}
    </form>
  );
}
