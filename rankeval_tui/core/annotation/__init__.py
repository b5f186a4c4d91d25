"""Annotation: how labels are made and reconciled.

Judging (the lock, the fsynced journal, the judging session), agreement between annotators,
merging shards and adjudicating disputes. Uses evaluation's objects and the files package to
read and write qrels; neither of those imports anything from here.
"""
