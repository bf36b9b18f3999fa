package bolt

// SlugOf exposes slugOf to the external tests.
var SlugOf = slugOf
