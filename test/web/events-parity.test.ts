import { expect } from "chai";
import { ME, registerState } from "./fixtures.js";
import { MORNING, registerAfterMorning } from "./morning.js";
import { applyAll, loadedState, observe } from "./observe.js";

describe("web client: register state + events = a fresh register", function () {
  it("register state + the morning's events = the register after it (every count and map the views read)", function () {
    const applied = loadedState(registerState());
    applyAll(applied, MORNING);
    const fresh = loadedState(registerAfterMorning());
    const [got, want] = [observe(applied), observe(fresh)];
    for (const key of Object.keys(want) as Array<keyof typeof want>) {
      expect(got[key], key).to.deep.equal(want[key]);
    }
  });

  it("reads the user's role from their own user record (register has no top-level role)", function () {
    const state = loadedState(registerState());
    expect(state.world.role.value).to.equal(400);
    expect(state.world.isAdmin.value).to.equal(false);
    const admin = registerState({ is_admin: true });
    Object.assign(
      admin.realm_users.find((u) => u.user_id === ME)!,
      { role: 200, is_admin: true },
    );
    expect(loadedState(admin).world.isAdmin.value).to.equal(true);
  });
});
