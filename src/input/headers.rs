//! The header block of the encapsulating entity: an HTTP response (with its redirect chain) or
//! a MIME heading (RFC 2396 §5.1.2).

/// Header fields, in order, names as given. Lookups are case-insensitive (RFC 822 §3.4.7,
/// RFC 9110 §5.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers {
    fields: Vec<(String, String)>,
    /// The block began with an HTTP status line (`HTTP/1.1 200 OK`): an HTTP response.
    http: bool,
    /// The status code of that line.
    status: Option<u16>,
    /// The responses before the last one (a redirect chain), oldest first: status and
    /// `Location`. Bounded: see [`MAX_REDIRECTS`].
    earlier: Vec<Response>,
    /// Redirects among the earlier responses (3xx with a `Location`), kept or not.
    redirects: usize,
    /// The `Location` of the last of them.
    last_location: Option<String>,
}

/// Browsers follow at most this many redirects: Fetch §4.4 "HTTP-redirect fetch", step 5: "If
/// request's redirect count is 20, return a network error." A saved chain is kept up to one
/// redirect past it (enough to tell it is too long); the others are only counted, so a header
/// block of thousands of `HTTP/` heads costs no more memory than its longest line.
pub const MAX_REDIRECTS: usize = 20;

/// Earlier responses that are not redirects (`100 Continue`, …) kept at most.
const MAX_OTHER_RESPONSES: usize = 2 * MAX_REDIRECTS;

/// One earlier response of a saved chain: its status code and its `Location`, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code (`301`), when the status line had one.
    pub status: Option<u16>,
    /// The `Location` field's value.
    pub location: Option<String>,
}

impl Response {
    /// A redirect: a 3xx status with a `Location` (RFC 9110 §15.4).
    pub fn is_redirect(&self) -> bool {
        self.status.is_some_and(|s| (300..400).contains(&s)) && self.location.is_some()
    }
}

impl Headers {
    /// No fields.
    pub fn new() -> Headers {
        Headers::default()
    }

    /// Parses a raw header block: an optional HTTP status line, then `Name: value` fields with
    /// folded continuation lines (RFC 822 §3.1.1 unfolding), up to the first empty line. When the
    /// text holds several responses (a redirect chain saved by `curl -D` or `wget -S`), the last
    /// one is the entity's. Lines that are not fields are skipped.
    pub fn parse(block: &str) -> Headers {
        let mut headers = Headers::new();
        for line in block.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.starts_with("HTTP/") {
                // A new response starts: it replaces what came before, which is kept only as a
                // step of the redirect chain.
                if headers.http {
                    headers.push_earlier();
                }
                headers.fields.clear();
                headers.http = true;
                headers.status = line
                    .split_ascii_whitespace()
                    .nth(1)
                    .and_then(|code| code.parse().ok());
                continue;
            }
            if line.is_empty() {
                continue;
            }
            if line.starts_with([' ', '\t']) {
                if let Some((_, value)) = headers.fields.last_mut() {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                continue;
            }
            headers.push_line(line);
        }
        headers
    }

    /// The response read so far becomes an earlier one: kept while the chain is within
    /// [`MAX_REDIRECTS`] (one more is kept, to tell a chain that is too long), counted always.
    fn push_earlier(&mut self) {
        let response = Response {
            status: self.status,
            location: self.get("Location").map(str::to_owned),
        };
        if response.is_redirect() {
            self.redirects += 1;
            self.last_location.clone_from(&response.location);
            if self.redirects <= MAX_REDIRECTS + 1 {
                self.earlier.push(response);
            }
        } else if self
            .earlier
            .len()
            .saturating_sub(self.redirects.min(MAX_REDIRECTS + 1))
            < MAX_OTHER_RESPONSES
        {
            self.earlier.push(response);
        }
    }

    /// Adds one `Name: value` field; says whether the line had that shape.
    pub fn push_line(&mut self, line: &str) -> bool {
        match line.split_once(':') {
            Some((name, value)) if !name.trim().is_empty() && !name.contains([' ', '\t']) => {
                self.fields
                    .push((name.trim().to_owned(), value.trim().to_owned()));
                true
            }
            _ => false,
        }
    }

    /// Adds one field.
    pub fn push_field(&mut self, name: &str, value: &str) {
        self.fields.push((name.to_owned(), value.to_owned()));
    }

    /// No field, and no status line.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && !self.http
    }

    /// Whether the block was an HTTP response.
    pub fn is_http(&self) -> bool {
        self.http
    }

    /// The status code of the (last) HTTP response's status line.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The responses before the last one, oldest first (a chain saved by `curl -L -D` or
    /// `wget -S`); empty for a single response or a plain header block. Of a chain longer than
    /// [`MAX_REDIRECTS`], only the first `MAX_REDIRECTS + 1` redirects are kept (see
    /// [`Headers::redirect_count`]).
    pub fn earlier_responses(&self) -> &[Response] {
        &self.earlier
    }

    /// How many earlier responses are redirects (3xx with a `Location`), kept or not.
    pub fn redirect_count(&self) -> usize {
        self.redirects
    }

    /// The `Location` of the last earlier redirect, kept or not.
    pub fn last_redirect_location(&self) -> Option<&str> {
        self.last_location.as_deref()
    }

    /// The last value of field `name` (a later field overrides an earlier one).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every field, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.fields.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_unfolds_and_keeps_the_last_response() {
        let h = Headers::parse(
            "HTTP/1.1 301 Moved\r\nLocation: /x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html;\r\n charset=utf-8\r\ncontent-location: /a/\r\n\r\n",
        );
        assert!(h.is_http());
        assert_eq!(h.get("Location"), None);
        assert_eq!(
            h.earlier_responses(),
            [Response {
                status: Some(301),
                location: Some("/x".into())
            }]
        );
        assert_eq!(h.get("CONTENT-TYPE"), Some("text/html; charset=utf-8"));
        assert_eq!(h.get("Content-Location"), Some("/a/"));
        let h = Headers::parse("Content-Base: http://h/\n");
        assert!(!h.is_http());
        assert_eq!(h.get("content-base"), Some("http://h/"));
    }

    #[test]
    fn push_line_wants_a_field() {
        let mut h = Headers::new();
        assert!(h.push_line("X-A: 1"));
        assert!(!h.push_line("no colon"));
        assert!(!h.push_line("bad name: 1"));
        assert_eq!(h.iter().count(), 1);
    }
}
