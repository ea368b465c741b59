pub(crate) mod css;
pub(crate) mod refresh;
pub(crate) mod srcset;
