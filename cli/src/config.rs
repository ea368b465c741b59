//! `linkbase.toml`: the `check` settings of a site, as lychee keeps them in `lychee.toml`: at
//! the checked tree's root, or `--config FILE`. Every key is a `check` flag (the same name with
//! `_` for `-`); the online ones sit in an `[online]` table. A key the file does not know is an
//! error naming the file and the key.
//!
//! One merge: the command line is parsed alone, then each setting of the file fills a flag the
//! command line left unset, through the same checks as the flag's (a list flag given on the
//! command line replaces the file's list; `--local` replaces the file's `site_url`, and
//! `--site-url` its `local`), then the rules that tie flags together are checked once, on the
//! merged settings.
//!
//! Trust (docs/sites.md, "What a checked tree can and cannot make linkbase do"): the tree's own
//! file is read only as a regular file inside the tree, at most [`MAX_FILE`], and may not set
//! what would widen what linkbase reads or sends ([`UNTRUSTED_KEYS`]); a file given with
//! `--config` is the user's. Every path either names is relative to the file's directory and
//! must stay inside it. Errors quote the file only as a short excerpt, its control characters
//! escaped.

use std::path::{Component, Path, PathBuf};

use clap::ValueEnum;
use serde::Deserialize;

use crate::args::{count, CheckArgs, CheckFormat};

/// The file looked for at the root of the checked tree.
pub const FILE_NAME: &str = "linkbase.toml";

/// The most of a settings file read: a site's settings are a few lines.
pub const MAX_FILE: u64 = 1 << 20;

/// What only the user may set (the command line, or a file named with `--config`): the tree's
/// own file naming one of these is an error. `allow_private` would let the tree's links reach
/// the runner's own network; `insecure` and `cacert` would let anyone on the network read the
/// `--header` secrets the user sends over TLS.
pub const UNTRUSTED_KEYS: [&str; 3] = ["allow_private", "insecure", "cacert"];

/// A string, or a list of strings (`exclude = "x"` or `exclude = ["x", "y"]`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn values(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// Status codes: `"200..=299,403"`, or a list of codes and ranges (`[200, "300..400"]`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Codes {
    Text(String),
    List(Vec<Code>),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Code {
    Number(u16),
    Text(String),
}

impl Codes {
    fn text(&self) -> String {
        match self {
            Codes::Text(t) => t.clone(),
            Codes::List(l) => l
                .iter()
                .map(|c| match c {
                    Code::Number(n) => n.to_string(),
                    Code::Text(t) => t.clone(),
                })
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

/// `cache = true` (the default file) or `cache = "FILE"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Cache {
    On(bool),
    File(PathBuf),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Online {
    /// `--online`.
    enabled: Option<bool>,
    accept: Option<Codes>,
    timeout: Option<String>,
    max_time: Option<String>,
    max_retries: Option<u64>,
    retry_wait: Option<String>,
    max_redirects: Option<u64>,
    max_concurrency: Option<u64>,
    host_concurrency: Option<u64>,
    host_interval: Option<String>,
    allow_private: Option<bool>,
    user_agent: Option<String>,
    insecure: Option<bool>,
    cacert: Option<PathBuf>,
    /// `--header 'HOST: NAME: VALUE'`.
    headers: Option<OneOrMany>,
    cache: Option<Cache>,
    max_cache_age: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    site_url: Option<String>,
    local: Option<bool>,
    root_dir: Option<PathBuf>,
    format: Option<String>,
    exclude: Option<OneOrMany>,
    include: Option<OneOrMany>,
    exclude_path: Option<OneOrMany>,
    remap: Option<OneOrMany>,
    index_files: Option<OneOrMany>,
    fallback_extensions: Option<OneOrMany>,
    default_charset: Option<String>,
    fail_on_unchecked: Option<bool>,
    broken_only: Option<bool>,
    jobs: Option<u64>,
    #[serde(default)]
    online: Online,
}

/// A settings file, read: where it is, whether the user named it, and its settings.
struct File {
    path: PathBuf,
    config: Config,
}

impl File {
    /// `--config FILE`, or the tree's own `DIR/linkbase.toml` when there is one.
    fn read(args: &CheckArgs) -> Result<Option<File>, String> {
        let (path, named, bytes) = match &args.config {
            Some(path) => {
                let bytes = linkbase::fs::read_named_file(path, MAX_FILE)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                (path.clone(), true, bytes)
            }
            None => {
                let path = args.dir.join(FILE_NAME);
                match linkbase::fs::read_tree_file(&args.dir, Path::new(FILE_NAME), MAX_FILE)
                    .map_err(|e| format!("{}: {e}", path.display()))?
                {
                    Some(bytes) => (path, false, bytes),
                    None => return Ok(None),
                }
            }
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            let line = line_of(&bytes, e.valid_up_to());
            format!("{}: line {line}: not UTF-8", path.display())
        })?;
        let config: Config = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(String::new(), |span| {
                format!("line {}: ", line_of(text.as_bytes(), span.start))
            });
            format!(
                "{}: {line}{}",
                path.display(),
                linkbase::text::excerpt(e.message(), 160)
            )
        })?;
        let file = File { path, config };
        if !named {
            if let Some(key) = file.untrusted_key() {
                return Err(format!(
                    "{}: {key}: not taken from the checked tree's own settings (give the file \
                     with --config to trust it, or the flag on the command line)",
                    file.path.display()
                ));
            }
        }
        Ok(Some(file))
    }

    /// The first of [`UNTRUSTED_KEYS`] the file sets.
    fn untrusted_key(&self) -> Option<&'static str> {
        let o = &self.config.online;
        [
            o.allow_private.is_some(),
            o.insecure.is_some(),
            o.cacert.is_some(),
        ]
        .iter()
        .position(|set| *set)
        .and_then(|i| UNTRUSTED_KEYS.get(i).copied())
    }

    /// The file's directory: what its paths are relative to, and confined to.
    fn dir(&self) -> &Path {
        match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        }
    }

    /// A message about `key` of this file, quoting its value as a short excerpt.
    fn bad(&self, key: &str, value: &str, why: &str) -> String {
        format!(
            "{}: {key} = \"{}\": {why}",
            self.path.display(),
            linkbase::text::excerpt(value, 80)
        )
    }

    /// A path the file names, relative to its directory and inside it: normal components only
    /// (no `..`, not absolute), none of its directories a symbolic link.
    fn inside(&self, key: &str, path: &Path) -> Result<PathBuf, String> {
        let text = path.to_string_lossy();
        let plain = !path.as_os_str().is_empty()
            && path
                .components()
                .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !plain {
            return Err(self.bad(
                key,
                &text,
                &format!(
                    "must be a path inside {} (relative, without ..)",
                    self.dir().display()
                ),
            ));
        }
        let root =
            linkbase::fs::Dir::open(self.dir(), false).map_err(|e| self.bad(key, &text, &e))?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if let Err(e) = root.sub(parent, false) {
                if self.dir().join(parent).exists() {
                    return Err(self.bad(key, &text, &e));
                }
            }
        }
        Ok(path.to_path_buf())
    }

    /// The file's settings put into `args` where the command line gave none (`given` says
    /// which flags it gave, by clap id).
    fn merge_into(&self, args: &mut CheckArgs, given: &dyn Fn(&str) -> bool) -> Result<(), String> {
        let c = &self.config;
        let dir = self.dir().to_path_buf();
        // The site: the command line's choice of --site-url or --local replaces the file's.
        if !given("site_url") && !given("local") {
            if c.site_url.is_some() && c.local == Some(true) {
                return Err(format!(
                    "{}: site_url and local = true: one or the other",
                    self.path.display()
                ));
            }
            if let Some(url) = &c.site_url {
                linkbase::site::Site::new(url)
                    .map_err(|e| self.bad("site_url", url, &e.to_string()))?;
            }
            args.site_url.clone_from(&c.site_url);
            args.local = c.local == Some(true);
        }
        if let (Some(root), false) = (&c.root_dir, given("root_dir")) {
            if args.local {
                args.root_dir = Some(dir.join(self.inside("root_dir", root)?));
            }
        }
        if let (Some(format), false) = (&c.format, given("format")) {
            args.format = CheckFormat::from_str(format, false).map_err(|_| {
                let names: Vec<String> = CheckFormat::value_variants()
                    .iter()
                    .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_owned()))
                    .collect();
                self.bad(
                    "format",
                    format,
                    &format!("not one of {}", names.join(", ")),
                )
            })?;
        }
        let list = |values: &Option<OneOrMany>, id: &str, into: &mut Vec<String>| {
            if let (Some(v), false) = (values, given(id)) {
                *into = v.values();
            }
        };
        list(&c.exclude, "exclude", &mut args.exclude);
        list(&c.include, "include", &mut args.include);
        list(&c.exclude_path, "exclude_path", &mut args.exclude_path);
        if let (Some(remaps), false) = (&c.remap, given("remap")) {
            args.remap = remaps
                .values()
                .iter()
                .map(|spec| self.remap(spec, &dir))
                .collect::<Result<_, _>>()?;
        }
        if let (Some(names), false) = (&c.index_files, given("index_files")) {
            args.index_files = Some(names.values());
        }
        list(
            &c.fallback_extensions,
            "fallback_extensions",
            &mut args.fallback_extensions,
        );
        if let (Some(label), false) = (&c.default_charset, given("default_charset")) {
            if encoding_rs::Encoding::for_label(label.trim().as_bytes()).is_none() {
                return Err(self.bad("default_charset", label, "not an encoding label"));
            }
            args.default_charset = Some(label.clone());
        }
        args.fail_on_unchecked |= c.fail_on_unchecked == Some(true) && !given("fail_on_unchecked");
        args.broken_only |= c.broken_only == Some(true) && !given("broken_only");
        if let (Some(n), false) = (c.jobs, given("jobs")) {
            args.jobs = Some(self.number("jobs", n, count::<0, 256>)?);
        }
        self.merge_online(args, given, &dir)
    }

    fn merge_online(
        &self,
        args: &mut CheckArgs,
        given: &dyn Fn(&str) -> bool,
        dir: &Path,
    ) -> Result<(), String> {
        let o = &self.config.online;
        let a = &mut args.online;
        if o.enabled == Some(true) && !given("online") {
            a.online = true;
        }
        if let (Some(codes), false) = (&o.accept, given("accept")) {
            let text = codes.text();
            linkbase::check::online::Accept::parse(&text)
                .map_err(|why| self.bad("accept", &text, &why))?;
            a.accept = text;
        }
        let duration = |key: &str,
                        value: &Option<String>,
                        max: Option<std::time::Duration>|
         -> Result<Option<String>, String> {
            match (value, given(key)) {
                (Some(text), false) => {
                    linkbase::check::online::bounded_duration(text, max)
                        .map_err(|why| self.bad(key, text, &why))?;
                    Ok(Some(text.clone()))
                }
                _ => Ok(None),
            }
        };
        use linkbase::check::online::{MAX_HOST_INTERVAL, MAX_RETRY_WAIT, MAX_RUN_TIME};
        if let (Some(t), false) = (&o.timeout, given("timeout")) {
            linkbase::check::online::request_timeout(t)
                .map_err(|why| self.bad("timeout", t, &why))?;
            a.timeout = t.clone();
        }
        if let Some(t) = duration("max_time", &o.max_time, Some(MAX_RUN_TIME))? {
            a.max_time = Some(t);
        }
        if let Some(t) = duration("retry_wait", &o.retry_wait, Some(MAX_RETRY_WAIT))? {
            a.retry_wait = t;
        }
        if let Some(t) = duration("host_interval", &o.host_interval, Some(MAX_HOST_INTERVAL))? {
            a.host_interval = Some(t);
        }
        if let Some(t) = duration("max_cache_age", &o.max_cache_age, None)? {
            a.max_cache_age = t;
        }
        if let (Some(n), false) = (o.max_retries, given("max_retries")) {
            a.max_retries = self.number("max_retries", n, count::<0, 10>)?;
        }
        if let (Some(n), false) = (o.max_redirects, given("max_redirects")) {
            a.max_redirects = self.number("max_redirects", n, count::<0, 50>)?;
        }
        if let (Some(n), false) = (o.max_concurrency, given("max_concurrency")) {
            a.max_concurrency = self.number("max_concurrency", n, count::<1, 256>)?;
        }
        if let (Some(n), false) = (o.host_concurrency, given("host_concurrency")) {
            a.host_concurrency = self.number("host_concurrency", n, count::<1, 256>)?;
        }
        if let (Some(ua), false) = (&o.user_agent, given("user_agent")) {
            linkbase::check::online::check_user_agent(ua)
                .map_err(|why| self.bad("user_agent", ua, &why))?;
            a.user_agent = Some(ua.clone());
        }
        if let (Some(headers), false) = (&o.headers, given("headers")) {
            let values = headers.values();
            for h in &values {
                linkbase::check::online::HostHeader::parse(h)
                    .map_err(|why| self.bad("headers", h, &why))?;
            }
            a.headers = values;
        }
        // Trusted files only (see `File::read`). TLS is one choice: the command line's
        // --insecure or --cacert replaces the file's.
        if !given("insecure") && !given("cacert") {
            a.insecure |= o.insecure == Some(true);
            if let Some(file) = &o.cacert {
                a.cacert = Some(dir.join(self.inside("cacert", file)?));
            }
        }
        a.allow_private |= o.allow_private == Some(true) && !given("allow_private");
        if !given("cache") {
            match &o.cache {
                Some(Cache::On(true)) => a.cache = Some(None),
                Some(Cache::File(path)) => {
                    a.cache = Some(Some(self.inside("cache", path)?));
                    a.cache_below = Some(dir.to_path_buf());
                }
                Some(Cache::On(false)) | None => {}
            }
        }
        Ok(())
    }

    /// A number of the file within the bounds of its flag.
    fn number(
        &self,
        key: &str,
        n: u64,
        parse: fn(&str) -> Result<usize, String>,
    ) -> Result<usize, String> {
        let text = n.to_string();
        parse(&text).map_err(|why| format!("{}: {key} = {n}: {why}", self.path.display()))
    }

    /// `PREFIX TARGET` of the file: a TARGET that is a directory is a path inside the file's
    /// directory, made one the command line would give.
    fn remap(&self, spec: &str, dir: &Path) -> Result<String, String> {
        let mut parts = spec.split_whitespace();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(from), Some(to), None) if !to.contains("://") => {
                let inside = self.inside("remap", Path::new(to))?;
                Ok(format!("{from} {}", dir.join(inside).display()))
            }
            // The same rules as the flag's say what is wrong with it.
            _ => Ok(spec.to_owned()),
        }
    }
}

/// The 1-based line of byte `at` in `bytes`.
fn line_of(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(..at)
        .unwrap_or(bytes)
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The clap ids of the flags that need `--online`.
const ONLINE_FLAGS: [&str; 16] = [
    "accept",
    "timeout",
    "max_time",
    "max_retries",
    "retry_wait",
    "max_redirects",
    "max_concurrency",
    "host_concurrency",
    "host_interval",
    "allow_private",
    "insecure",
    "cacert",
    "user_agent",
    "headers",
    "cache",
    "max_cache_age",
];

/// `check`'s settings file merged into `args` under the command line (its flags named in
/// [`CheckArgs::given`]), then the rules that tie flags together checked on the result.
///
/// # Errors
/// The file cannot be read or is not valid (the message names the file, the line or the key);
/// the merged settings break a rule (no site, a flag without the one it needs).
pub fn apply(args: &mut CheckArgs) -> Result<(), String> {
    let given_ids = args.given.clone();
    let given = |id: &str| given_ids.iter().any(|g| g == id);
    if let Some(file) = File::read(args)? {
        file.merge_into(args, &given)?;
    }
    if args.site_url.is_none() && !args.local {
        return Err(
            "no --site-url URL (the URL the tree is published at) nor --local (the tree as it \
             browses from disk): check needs one of them (or site_url or local in linkbase.toml)"
                .to_owned(),
        );
    }
    if args.root_dir.is_some() && !args.local {
        return Err("--root-dir ROOT goes with --local".to_owned());
    }
    if !args.online.online {
        if let Some(flag) = ONLINE_FLAGS.iter().find(|id| given(id)) {
            return Err(format!("{} needs --online", flag_name(flag)));
        }
    }
    if args.online.cache.is_none() && given("max_cache_age") {
        return Err("--max-cache-age needs --cache".to_owned());
    }
    Ok(())
}

/// What a link to a directory or to a file the tree does not have names (`--index-files`,
/// `--fallback-extensions`, or their keys), set on `site`; a bad name is said with where it
/// came from (the flag, or the settings file and its key).
pub fn set_lookups(site: &mut linkbase::site::Site, args: &CheckArgs) -> Result<(), String> {
    let whence = |id: &str| {
        if args.given.iter().any(|g| g == id) {
            flag_name(id)
        } else {
            let file = args
                .config
                .clone()
                .unwrap_or_else(|| args.dir.join(FILE_NAME));
            format!("{}: {id}", file.display())
        }
    };
    if let Some(names) = &args.index_files {
        site.set_index_files(names)
            .map_err(|e| format!("{}: {e}", whence("index_files")))?;
    }
    site.set_fallback_extensions(&args.fallback_extensions)
        .map_err(|e| format!("{}: {e}", whence("fallback_extensions")))
}

/// The flag of a clap id: `max_time` → `--max-time` (`headers` is `--header`).
fn flag_name(id: &str) -> String {
    match id {
        "headers" => "--header".to_owned(),
        id => format!("--{}", id.replace('_', "-")),
    }
}

#[cfg(test)]
mod tests;
