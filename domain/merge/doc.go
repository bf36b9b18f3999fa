// Package merge merges two nodes a person judged to say one thing
// (docs/design/trust.md#merging-two-nodes): PlanMerge says what a merge would
// do and changes nothing, MergeNodes does it through the graph's own writes
// (PutNode, PutEdge, DeleteNode) as one change.
//
// It is a room of domain (docs/decisions/0088-domain-rooms.md): it imports
// domain and is as pure; finding the possible duplicates stays in domain,
// which reads the graph's search index for it.
package merge
