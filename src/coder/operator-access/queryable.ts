// What a step of operator access needs of a database connection: queries, nothing else.
import type pg from 'pg';

export type Queryable = Pick<pg.ClientBase, 'query'>;
