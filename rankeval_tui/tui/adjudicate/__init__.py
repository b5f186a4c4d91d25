"""The adjudication screen: two annotators' disagreements, one decision per disputed pair."""
