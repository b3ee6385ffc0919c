/**
 * The page envelope every paginated endpoint shares (docs/api.md#pagination):
 * `{ data, total, page, limit, totalPages }`, `page` from 1.
 */

/** A page of results. */
export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** Builds a {@link Page} from the full match count. */
export function pageOf<T>(data: T[], total: number, page: number, limit: number): Page<T> {
  return { data, total, page, limit, totalPages: Math.ceil(total / limit) };
}
