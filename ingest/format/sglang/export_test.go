package sglang

// For the external tests.
const LineBuffer = sglangLineBuffer
