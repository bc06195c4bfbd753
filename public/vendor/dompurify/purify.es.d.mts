// Types for the vendored copy (scripts/vendor-page-libs.mjs), from the package it was copied from.
export { default } from "dompurify";
