import { useState } from "preact/hooks";
import { client } from "../../app.js";
import { api, upload } from "../../api/http.js";
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

export function PasswordSettings() {
  const [oldPassword, setOld] = useState("");
  const [newPassword, setNew] = useState("");
  const [save, saved] = useSave();
  const me = client.world.me.value!;
  return (
    <form
      class="form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(async () => {
          await updateSettings({ old_password: oldPassword, new_password: newPassword });
          setOld("");
          setNew("");
        }, "Password changed. Your other sessions were logged out.");
      }}
    >
      <p>
        Email: <strong>{me.delivery_email ?? me.email}</strong>
      </p>
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
