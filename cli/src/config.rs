//! `linkbase.toml` (issue 25 item 7): the `check` settings of a site, as lychee keeps them in
//! `lychee.toml`: at the checked tree's root, or `--config FILE`. Every key is a `check` flag
//! (the same name with `_` for `-`); the online ones sit in an `[online]` table. A flag given on
//! the command line wins over the file, a list flag included (its values replace the file's
//! list). Relative paths in the file are relative to the file's directory. A key the file does
//! not know is an error naming the file and the key.
//!
//! The file's settings become command-line arguments put before the user's, so that clap checks
//! and parses them exactly as it does flags: one parser, one set of rules.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file looked for at the root of the checked tree.
pub const FILE_NAME: &str = "linkbase.toml";

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
    max_retries: Option<u32>,
    retry_wait: Option<String>,
    max_redirects: Option<u32>,
    max_concurrency: Option<usize>,
    host_concurrency: Option<usize>,
    host_interval: Option<String>,
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
    default_charset: Option<String>,
    fail_on_unchecked: Option<bool>,
    broken_only: Option<bool>,
    jobs: Option<usize>,
    online: Option<Online>,
}

/// One setting as arguments: its flag id (clap's, the field name) and the tokens.
struct Setting {
    id: &'static str,
    tokens: Vec<String>,
}

fn flag(id: &'static str, value: impl std::fmt::Display) -> Setting {
    let name = id.replace('_', "-");
    Setting {
        id,
        tokens: vec![format!("--{name}={value}")],
    }
}

fn switch(id: &'static str, on: Option<bool>) -> Option<Setting> {
    on.filter(|on| *on).map(|_| Setting {
        id,
        tokens: vec![format!("--{}", id.replace('_', "-"))],
    })
}

fn list(id: &'static str, values: &Option<OneOrMany>) -> Option<Setting> {
    let name = id.replace('_', "-");
    values.as_ref().map(|v| Setting {
        id,
        tokens: v.values().iter().map(|v| format!("--{name}={v}")).collect(),
    })
}

impl Config {
    /// The settings as flags; `online` says whether the run checks online (the command line's
    /// `--online`, or the file's), without which the online settings are left out (clap
    /// refuses them without `--online`).
    fn settings(&self, dir: &Path, online_on_command_line: bool) -> Vec<Setting> {
        let path = |p: &PathBuf| dir.join(p).display().to_string();
        let mut out: Vec<Setting> = Vec::new();
        out.extend(self.site_url.as_ref().map(|v| flag("site_url", v)));
        out.extend(switch("local", self.local));
        out.extend(self.root_dir.as_ref().map(|v| flag("root_dir", path(v))));
        out.extend(self.format.as_ref().map(|v| flag("format", v)));
        out.extend(list("exclude", &self.exclude));
        out.extend(list("include", &self.include));
        out.extend(list("exclude_path", &self.exclude_path));
        out.extend(list("remap", &self.remap));
        out.extend(
            self.default_charset
                .as_ref()
                .map(|v| flag("default_charset", v)),
        );
        out.extend(switch("fail_on_unchecked", self.fail_on_unchecked));
        out.extend(switch("broken_only", self.broken_only));
        out.extend(self.jobs.map(|v| flag("jobs", v)));
        let Some(o) = &self.online else {
            return out;
        };
        out.extend(switch("online", o.enabled));
        if !(online_on_command_line || o.enabled == Some(true)) {
            return out;
        }
        if let Some(codes) = &o.accept {
            let text = match codes {
                Codes::Text(t) => t.clone(),
                Codes::List(l) => l
                    .iter()
                    .map(|c| match c {
                        Code::Number(n) => n.to_string(),
                        Code::Text(t) => t.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
            };
            out.push(flag("accept", text));
        }
        out.extend(o.timeout.as_ref().map(|v| flag("timeout", v)));
        out.extend(o.max_retries.map(|v| flag("max_retries", v)));
        out.extend(o.retry_wait.as_ref().map(|v| flag("retry_wait", v)));
        out.extend(o.max_redirects.map(|v| flag("max_redirects", v)));
        out.extend(o.max_concurrency.map(|v| flag("max_concurrency", v)));
        out.extend(o.host_concurrency.map(|v| flag("host_concurrency", v)));
        out.extend(o.host_interval.as_ref().map(|v| flag("host_interval", v)));
        out.extend(o.user_agent.as_ref().map(|v| flag("user_agent", v)));
        out.extend(switch("insecure", o.insecure));
        out.extend(o.cacert.as_ref().map(|v| flag("cacert", path(v))));
        if let Some(h) = list("header", &o.headers) {
            // The flag is `--header`; its clap id is the field's, `headers`.
            out.push(Setting {
                id: "headers",
                tokens: h.tokens,
            });
        }
        match &o.cache {
            Some(Cache::On(true)) => out.push(Setting {
                id: "cache",
                tokens: vec!["--cache".to_owned()],
            }),
            Some(Cache::File(p)) => out.push(flag("cache", path(p))),
            Some(Cache::On(false)) | None => {}
        }
        if o.cache.is_some() {
            out.extend(o.max_cache_age.as_ref().map(|v| flag("max_cache_age", v)));
        }
        out
    }
}

/// `check`'s command line with the config file's settings put in front of the user's
/// arguments, for every flag the user did not give; `args` unchanged when there is no file.
///
/// # Errors
/// The file named by `--config` cannot be read, or a file is not valid TOML or has a key
/// this does not know (the message names the file and the key).
pub fn apply(args: &[OsString]) -> Result<Vec<OsString>, String> {
    use clap::{Args, Command};
    // What the user gave, read leniently: a flag the file supplies (--site-url) may be missing.
    let Ok(matches) = Command::new("linkbase")
        .subcommand(crate::args::CheckArgs::augment_args(Command::new("check")))
        .ignore_errors(true)
        .try_get_matches_from(args)
    else {
        return Ok(args.to_vec());
    };
    let Some(("check", check)) = matches.subcommand() else {
        return Ok(args.to_vec());
    };
    let given = |id: &str| check.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
    let (file, named) = match check.get_one::<PathBuf>("config") {
        Some(file) => (file.clone(), true),
        None => match check.get_one::<PathBuf>("dir") {
            Some(dir) => (dir.join(FILE_NAME), false),
            None => return Ok(args.to_vec()),
        },
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if !named && e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(args.to_vec());
        }
        Err(e) => return Err(format!("{}: {e}", file.display())),
    };
    let config: Config = toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(String::new(), |span| {
            let before = text.get(..span.start).unwrap_or_default();
            format!("line {}: ", before.matches('\n').count() + 1)
        });
        format!("{}: {line}{}", file.display(), e.message())
    })?;
    let dir = file.parent().unwrap_or(Path::new("."));
    let online = check.get_flag("online") && given("online");
    let mut out: Vec<OsString> = args.iter().take(2).cloned().collect();
    for setting in config.settings(dir, online) {
        if !given(setting.id) {
            out.extend(setting.tokens.into_iter().map(OsString::from));
        }
    }
    out.extend(args.iter().skip(2).cloned());
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn unknown_keys_are_named() {
        let err = toml::from_str::<Config>("site_url = \"x\"\nsite_ulr = \"y\"\n").unwrap_err();
        assert!(err.message().contains("unknown field `site_ulr`"), "{err}");
        let err = toml::from_str::<Config>("[online]\ntimout = \"1s\"\n").unwrap_err();
        assert!(err.message().contains("unknown field `timout`"), "{err}");
    }

    #[test]
    fn the_command_line_wins() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            "site_url = \"https://a.example/\"\nformat = \"json\"\nexclude = [\"x\", \"y\"]\n\
             [online]\naccept = [200, \"300..400\"]\ntimeout = \"5s\"\n",
        )
        .unwrap();
        let d = dir.path().to_str().unwrap();
        let args: Vec<OsString> = ["linkbase", "check", d, "--format", "sarif", "--exclude=z"]
            .iter()
            .map(OsString::from)
            .collect();
        // Online settings only with --online.
        assert_eq!(
            strings(&apply(&args).unwrap()),
            [
                "linkbase",
                "check",
                "--site-url=https://a.example/",
                d,
                "--format",
                "sarif",
                "--exclude=z"
            ]
        );
        let mut online = args.clone();
        online.push("--online".into());
        assert_eq!(
            strings(&apply(&online).unwrap()),
            [
                "linkbase",
                "check",
                "--site-url=https://a.example/",
                "--accept=200,300..400",
                "--timeout=5s",
                d,
                "--format",
                "sarif",
                "--exclude=z",
                "--online"
            ]
        );
    }
}
