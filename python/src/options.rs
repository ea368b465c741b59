//! The arguments every document function takes, read from Python: the profile, how headers
//! set the base, the headers themselves.

use linkbase::{HeaderBase, Headers, Profile};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::UsageError;

pub(crate) fn profile(name: &str) -> PyResult<Profile> {
    name.parse::<Profile>().map_err(|_| {
        UsageError::new_err(format!(
            "profile {name:?}: expected one of rfc2396, rfc1808, rfc3986, whatwg"
        ))
    })
}

pub(crate) fn header_base(name: &str) -> PyResult<HeaderBase> {
    match name {
        "entity" => Ok(HeaderBase::Entity),
        "browser" => Ok(HeaderBase::Browser),
        _ => Err(UsageError::new_err(format!(
            "header_base {name:?}: expected entity or browser"
        ))),
    }
}

/// `headers` as a mapping (anything with `.items()`) or an iterable of `(name, value)` pairs.
pub(crate) fn headers(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Headers> {
    let mut out = Headers::new();
    let Some(obj) = obj else {
        return Ok(out);
    };
    if obj.is_none() {
        return Ok(out);
    }
    let pairs = if obj.hasattr("items")? {
        obj.call_method0("items")?
    } else {
        obj.clone()
    };
    for pair in pairs.try_iter()? {
        let (name, value): (String, String) = pair?.extract().map_err(|_| {
            PyTypeError::new_err("headers: expected a mapping of str to str or (str, str) pairs")
        })?;
        out.push_field(&name, &value);
    }
    Ok(out)
}
