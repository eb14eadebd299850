// The client's languages: t(key, params) reads the catalog of the chosen language
// (/i18n/{lang}.json; en.json is the one source of keys). A value is a string with {name}
// placeholders, or, where a count appears, an object of plural forms chosen by
// Intl.PluralRules with params.n ({"one": "...", "few": "...", "other": "..."}).
// Numbers in params are formatted for the language (Intl.NumberFormat).
// Keys are literal strings in the code (t("home.join.title")) so a test can check every
// catalog against the keys used (tests/web/test_i18n_catalogs.py); index.html marks its
// texts with a data-i18n attribute (the key of the text) and data-i18n-attr (pairs
// attribute:key separated by semicolons).
//
// The language: the one kept (localStorage metrogames.lang, mirrored in the cookie `lang`
// the server reads for its own messages), else the best match of navigator.languages, else
// English. setLang() keeps the choice and fires "langchange" on window (screens redraw).

export const LANGS = ["en", "fr", "nl", "sk"];
export const LANG_NAMES = { en: "English", fr: "Français", nl: "Nederlands", sk: "Slovenčina" };
const KEY = "metrogames.lang";

let lang = "en";
let catalog = {};
let english = {};
let plurals = new Intl.PluralRules("en");
let numbers = new Intl.NumberFormat("en");

export const currentLang = () => lang;

/** The best of LANGS for the browser's preferred languages ("fr-BE" matches "fr"), else "en". */
export function browserLang(prefs = navigator.languages || [navigator.language || "en"]) {
  for (const p of prefs) {
    const base = String(p || "").toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

function storedLang() {
  try {
    const v = localStorage.getItem(KEY);
    if (LANGS.includes(v)) return v;
  } catch { /* storage off: the cookie or the browser */ }
  const m = document.cookie.match(/(?:^|;\s*)lang=([a-z]{2})/);
  return m && LANGS.includes(m[1]) ? m[1] : null;
}

function keep(code) {
  try { localStorage.setItem(KEY, code); } catch { /* the cookie still holds it */ }
  document.cookie = `lang=${code}; path=/; max-age=31536000; SameSite=Lax`;
}

async function fetchCatalog(code) {
  const res = await fetch(`/i18n/${code}.json`);
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.json();
}

async function use(code) {
  const [en, cat] = await Promise.all([
    Object.keys(english).length ? english : fetchCatalog("en"),
    code === "en" ? null : fetchCatalog(code),
  ]);
  english = en;
  catalog = cat || en;
  lang = code;
  plurals = new Intl.PluralRules(code);
  numbers = new Intl.NumberFormat(code);
  document.documentElement.lang = code;
  translateStatic();
}

/** Load the chosen language's catalog (before the first screen). */
export async function initI18n() {
  const code = storedLang() || browserLang();
  keep(code);
  try { await use(code); } catch { await use("en"); }
}

/** Switch to `code`, keep the choice, and tell the screens (window event "langchange"). */
export async function setLang(code) {
  if (!LANGS.includes(code)) return;
  keep(code);
  await use(code);
  window.dispatchEvent(new Event("langchange"));
}

/** The text of `key` in the current language (English when missing), params filled in. */
export function t(key, params = {}) {
  let value = Object.hasOwn(catalog, key) ? catalog[key] : english[key];
  if (value === undefined) return key;
  if (typeof value === "object") {
    const form = plurals.select(Number(params.n));
    value = value[form] ?? value.other;
  }
  return value.replace(/\{(\w+)\}/g, (all, name) => {
    if (!Object.hasOwn(params, name)) return all;
    const x = params[name];
    return typeof x === "number" ? numbers.format(x) : String(x);
  });
}

/** A number for the language, with `digits` decimals (1 234,5 in French). */
export function fmtNumber(x, digits = 0) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

/** A UTC date (YYYY-MM-DD or Date) in words for the language. */
export function fmtDate(date, opts = { weekday: "short", day: "numeric", month: "short", year: "numeric" }) {
  const d = typeof date === "string" ? new Date(`${date}T00:00:00Z`) : date;
  return d.toLocaleDateString(lang, { ...opts, timeZone: "UTC" });
}

/** A clock time (hours and minutes) for the language, local time. */
export function fmtTime(date) {
  return date.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" });
}

// index.html's marked texts: data-i18n (a key) sets the text, data-i18n-attr (attribute:key
// pairs separated by semicolons) sets attributes.
function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr, t(key));
    }
  }
}

/** The language switch of the header: a <select> of the four languages, in their own names. */
export function languageSwitch() {
  const sel = document.createElement("select");
  sel.id = "lang-switch";
  sel.className = "lang-switch";
  sel.setAttribute("data-testid", "lang-switch");
  sel.setAttribute("data-i18n-attr", "aria-label:header.language;title:header.language");
  for (const code of LANGS) {
    const o = document.createElement("option");
    o.value = code;
    o.textContent = LANG_NAMES[code];
    o.lang = code;
    if (code === lang) o.selected = true;
    sel.append(o);
  }
  sel.setAttribute("aria-label", t("header.language"));
  sel.title = t("header.language");
  sel.addEventListener("change", () => setLang(sel.value));
  window.addEventListener("langchange", () => { sel.value = lang; });
  return sel;
}
