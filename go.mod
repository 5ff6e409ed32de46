module github.com/benchledger/benchledger

go 1.26.8

require (
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/mattn/go-sqlite3 v1.14.53 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
)
