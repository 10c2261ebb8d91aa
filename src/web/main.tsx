import { render } from "preact";
import "./styles/app.css";
import { App } from "./views/App.js";
import { startRouter } from "./router.js";

startRouter();
render(<App />, document.getElementById("app")!);
