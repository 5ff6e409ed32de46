package vllmthroughput

// For the external tests.
var Keys = vllmThroughputKeys
