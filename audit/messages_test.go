package audit

import (
	"testing"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/store"
)

// TestChainKeysAreStoreChecks: a hash-chain finding's message key is its
// check id, so the keys must be the store's check ids.
func TestChainKeysAreStoreChecks(t *testing.T) {
	t.Parallel()
	for key, check := range map[string]string{MsgChainBroken: store.CheckChainLink, MsgChainChanged: store.CheckChainChanged,
		MsgChainMissing: store.CheckChainMissing, MsgChainUnrecorded: store.CheckChainExtra, MsgChainTriggers: store.CheckTriggers,
		MsgChainPublishable: store.CheckPublishable, MsgChainUnstarted: store.CheckChainUnstarted} {
		if key != check {
			t.Errorf("message key %s, store check %s", key, check)
		}
	}
}

// sayable checks that each finding a test produced carries a message key
// whose sentence, in every catalogue, fills from the parameters the
// finding really has (and its raw file, which the page adds): a placeholder
// the finding lacks would leave the page with the generic sentence.
func sayable(t *testing.T, fs []Finding) {
	t.Helper()
	for _, f := range fs {
		if f.MessageKey == "" {
			t.Errorf("a %s finding has no message key: %s", f.Check, f.Message)
			continue
		}
		args := locales.Args{}
		for k, v := range f.Params {
			args[k] = v
		}
		if _, ok := args["file"]; !ok && f.File != "" {
			args["file"] = f.File
		}
		for _, tag := range locales.Supported() {
			if _, err := locales.MustMatch(tag).MessageSubset("audit.msg."+f.MessageKey, args); err != nil {
				t.Errorf("%s finding %q: %v", f.Check, f.Message, err)
			}
		}
	}
}
