/**
 * How the e2e tests and the benchmark launch Debian's Chromium (`/usr/bin/chromium`; Playwright's
 * own browser download is not reachable here).
 *
 * Debian's Chromium is the full browser, run with `--headless`: unlike the headless shell that
 * Playwright launches by default, it builds the browser window's own pages too. Since Chromium
 * 156 that includes the address bar's popup, a WebUI page preloaded in a renderer of its own for
 * every new window, that is for every browser context: on two cores it took about a second of CPU
 * from each test and each measured run. `WebUIOmniboxPopup` and `WebUIOmniboxAimPopup` turned off
 * leave no such renderer.
 *
 * Chromium reads only the last `--disable-features` on its command line, and Playwright passes its
 * own list first: ours repeats Playwright's (1.65's, checked by `tests/unit/chromium-args.test.ts`
 * against the installed Playwright) and adds the two.
 */
export const CHROMIUM = '/usr/bin/chromium'

/** The features Playwright 1.65 turns off in Chromium (its `chromiumSwitches`). */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const

/** The address bar's WebUI popup and its AI-mode variant, preloaded for every window. */
const WINDOW_FEATURES_OFF = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'] as const

/** The arguments every launch of Chromium here takes. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...WINDOW_FEATURES_OFF].join(',')}`,
]
