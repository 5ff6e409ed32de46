//go:build !linux

package pgtest

// folderRoot is the folder a server's temporary folder is made in: the
// system's temporary folder (folder_linux.go puts a test server's in
// memory).
func folderRoot(durable bool) string { return "" }
