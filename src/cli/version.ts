// The package version is read in one place, below every layer that needs it (the parse cache too).
export { packageVersion } from "../package/skillport-version.js";
