/**
 * The languages a user may choose (default_language), as Zulip lists them: one per
 * translation in Zulip's locale/ directory plus English, with the code Django derives
 * from the locale (en_GB -> en-gb) and the language's own name from Django's LANG_INFO
 * (or the translation team's name where Django has none). Zulip builds this list as
 * locale/language_name_map.json when it compiles its translations.
 */
export const LANGUAGES: ReadonlyArray<{ readonly code: string; readonly name: string }> = [
  { code: "ar", name: "العربيّة" },
  { code: "be", name: "беларуская" },
  { code: "bg", name: "български" },
  { code: "bn", name: "বাংলা" },
  { code: "bqi", name: "Luri (Bakhtiari)" },
  { code: "ca", name: "català" },
  { code: "cs", name: "česky" },
  { code: "cy", name: "Cymraeg" },
  { code: "da", name: "dansk" },
  { code: "de", name: "Deutsch" },
  { code: "el", name: "Ελληνικά" },
  { code: "en", name: "English" },
  { code: "en-gb", name: "British English" },
  { code: "eo", name: "Esperanto" },
  { code: "es", name: "español" },
  { code: "et", name: "eesti" },
  { code: "fa", name: "فارسی" },
  { code: "fi", name: "suomi" },
  { code: "fr", name: "français" },
  { code: "gl", name: "galego" },
  { code: "gu", name: "ગુજરાતી" },
  { code: "hi", name: "हिंदी" },
  { code: "hu", name: "Magyar" },
  { code: "id", name: "Bahasa Indonesia" },
  { code: "it", name: "italiano" },
  { code: "ja", name: "日本語" },
  { code: "kk", name: "Қазақ" },
  { code: "ko", name: "한국어" },
  { code: "lt", name: "Lietuviškai" },
  { code: "lv", name: "latviešu" },
  { code: "ml", name: "മലയാളം" },
  { code: "mn", name: "Монгол" },
  { code: "my", name: "မြန်မာဘာသာ" },
  { code: "nl", name: "Nederlands" },
  { code: "no", name: "Norsk" },
  { code: "pl", name: "polski" },
  { code: "pt", name: "Português" },
  { code: "pt-br", name: "Português Brasileiro" },
  { code: "pt-pt", name: "Português (Portugal)" },
  { code: "ro", name: "Română" },
  { code: "ru", name: "Русский" },
  { code: "si", name: "සිංහල" },
  { code: "sl", name: "Slovenščina" },
  { code: "sr", name: "српски" },
  { code: "sv", name: "svenska" },
  { code: "ta", name: "தமிழ்" },
  { code: "tl", name: "Tagalog" },
  { code: "tr", name: "Türkçe" },
  { code: "uk", name: "Українська" },
  { code: "vi", name: "Tiếng Việt" },
  { code: "zh-hans", name: "简体中文" },
  { code: "zh-hant", name: "繁體中文" },
  { code: "zh-tw", name: "中文 (台灣)" },
];

const NAMES = new Map(LANGUAGES.map((language) => [language.code, language.name]));

export const isLanguageCode = (code: string) => NAMES.has(code);

/** The language's name, for events' language_name; Zulip says "Unknown" for other codes. */
export const languageName = (code: string) => NAMES.get(code) ?? "Unknown";
