// Types for the bundled copy (scripts/bundle-app-bridge.mjs), from the package it was built from.
export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
