import { memoryStore } from "../../src/session/store.js";
import { storeContract } from "./store-contract.js";

storeContract("memory", async () => {
  const store = memoryStore();
  return { a: store, b: store, close: () => store.close() };
});
