package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// FerretDB 1.24's PostgreSQL backend filters a document by a field with the containment
// operator (`_jsonb->'_id' @> '"value"'`), which the B-tree indexes it creates (its `_id_`
// index among them) cannot serve: every read, update or delete by `_id` is a sequential scan,
// 6 ms at 20,000 documents and growing with the collection (ADR 0121). The launcher therefore
// gives every table FerretDB creates a GIN index on its `_id`, which serves that operator, from
// an event trigger installed in the cluster at every start (idempotent), and indexes the tables
// that lack one.
const idIndexTrigger = `
CREATE OR REPLACE FUNCTION public.commerce_index_document_ids() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  created record;
BEGIN
  FOR created IN
    SELECT objid, object_identity FROM pg_event_trigger_ddl_commands()
    WHERE command_tag = 'CREATE TABLE' AND object_type = 'table'
  LOOP
    IF EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = created.objid AND attname = '_jsonb') THEN
      EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb -> %L) jsonb_path_ops)', created.object_identity, '_id');
    END IF;
  END LOOP;
END
$$;
-- Tables made before the trigger existed (a cluster of an older launcher) get the index too.
DO $$
DECLARE
  missing record;
BEGIN
  FOR missing IN
    SELECT c.oid::regclass AS name FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
      AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = '_jsonb')
      AND NOT EXISTS (
        SELECT 1 FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
        WHERE i.indrelid = c.oid AND am.amname = 'gin')
  LOOP
    EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb -> %L) jsonb_path_ops)', missing.name, '_id');
  END LOOP;
END
$$;
DROP EVENT TRIGGER IF EXISTS commerce_index_document_ids;
CREATE EVENT TRIGGER commerce_index_document_ids ON ddl_command_end WHEN TAG IN ('CREATE TABLE')
  EXECUTE FUNCTION public.commerce_index_document_ids();
`

// installIDIndexTrigger installs the trigger through the cluster's socket, as its superuser.
func installIDIndexTrigger(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer conn.Close(ctx)
	// The simple protocol runs the whole script, several statements, in one round trip.
	if _, err = conn.Exec(ctx, idIndexTrigger, pgx.QueryExecModeSimpleProtocol); err != nil {
		return fmt.Errorf("postgres: the _id index trigger: %w", err)
	}
	return nil
}
