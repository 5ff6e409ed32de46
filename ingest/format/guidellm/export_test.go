package guidellm

// For the external tests.
const (
	ID         = guidellmID
	GPUStackID = gpustackID
)
