//! lol_html's naive absolutizer, the baseline of the streaming engine's speed figures: what a Rust user would
//! write instead of linkbase. Every `href` and `src` is joined with the page URL (one
//! `url::Url::join` each) and set through lol_html's mutation API (which rebuilds the tag). No
//! `<base>`, `srcset`, CSS or encoding rules. Shared by `benches/pipeline.rs` (in process) and
//! `examples/lol_html_naive.rs` (one process per page).

/// `bytes` with every `href` and `src` made absolute against `base`.
pub fn lol_html_naive(
    bytes: &[u8],
    base: &url::Url,
) -> Result<Vec<u8>, lol_html::errors::RewritingError> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
    let join = |attr: &'static str| {
        move |el: &mut lol_html::html_content::Element<'_, '_>| {
            if let Some(v) = el.get_attribute(attr) {
                if let Ok(u) = base.join(&v) {
                    el.set_attribute(attr, u.as_str())?;
                }
            }
            Ok(())
        }
    };
    let settings = lol_html::Settings::new()
        .append_element_content_handler(lol_html::element!("[href]", join("href")))
        .append_element_content_handler(lol_html::element!("[src]", join("src")));
    let mut rewriter = lol_html::HtmlRewriter::new(settings, |c: &[u8]| out.extend_from_slice(c));
    rewriter.write(bytes)?;
    rewriter.end()?;
    Ok(out)
}
