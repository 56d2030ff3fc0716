/** True when the app runs against the in-browser mock daemon (MSW). Set by vite.config.ts. */
declare const __MOCK_DAEMON__: boolean
/** Absolute daemon origin baked into a production build, or '' for same-origin. */
declare const __API_BASE__: string
